package dev.conch.spring;

/** An {@link OnLeadership @OnLeadership} method that conch cannot call as a hook; fails startup. */
public final class InvalidOnLeadershipMethodException extends InvalidMethodException {

  /**
   * @param method the bean and method, as {@code "bean.method()"}
   * @param reason why conch cannot call it as a hook
   * @param action what to change
   */
  public InvalidOnLeadershipMethodException(String method, String reason, String action) {
    super("@OnLeadership", method, "cannot be a hook: " + reason, action);
  }
}
