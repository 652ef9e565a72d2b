package dev.conch.spring;

/**
 * An {@link OnLeadership @OnLeadership} method that conch refuses, and why: startup fails through
 * the starter's failure analyzer.
 */
public final class InvalidOnLeadershipMethodException extends IllegalStateException {

  private final String method;

  private final String reason;

  private final String action;

  /**
   * @param method the bean and method, as {@code "bean.method()"}
   * @param reason why conch cannot call it as a hook
   * @param action what to change
   */
  public InvalidOnLeadershipMethodException(String method, String reason, String action) {
    super("@OnLeadership method " + method + " cannot be a hook: " + reason);
    this.method = method;
    this.reason = reason;
    this.action = action;
  }

  /** The method, as {@code Class.method()}. */
  public String method() {
    return this.method;
  }

  /** What is wrong with it. */
  public String reason() {
    return this.reason;
  }

  /** What would be accepted. */
  public String action() {
    return this.action;
  }
}
