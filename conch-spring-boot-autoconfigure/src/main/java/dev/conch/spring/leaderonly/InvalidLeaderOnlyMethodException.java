package dev.conch.spring.leaderonly;

import java.lang.reflect.Method;

/** A {@link LeaderOnly @LeaderOnly} method that conch cannot guard; fails startup. */
public class InvalidLeaderOnlyMethodException extends IllegalStateException {

  private final transient Method method;

  private final String action;

  /**
   * @param method the method
   * @param problem what is wrong with it, as the end of a sentence that starts with the method
   * @param action what to do about it
   */
  public InvalidLeaderOnlyMethodException(Method method, String problem, String action) {
    super("@LeaderOnly method " + LeaderOnlyInvocations.methodName(method) + " " + problem);
    this.method = method;
    this.action = action;
  }

  /** The method. */
  public Method getMethod() {
    return this.method;
  }

  /** What to do about it. */
  public String getAction() {
    return this.action;
  }
}
