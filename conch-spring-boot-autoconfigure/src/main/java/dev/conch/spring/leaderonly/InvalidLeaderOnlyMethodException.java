package dev.conch.spring.leaderonly;

import dev.conch.spring.InvalidMethodException;
import java.lang.reflect.Method;

/** A {@link LeaderOnly @LeaderOnly} method that conch cannot guard; fails startup. */
public class InvalidLeaderOnlyMethodException extends InvalidMethodException {

  /**
   * @param method the method
   * @param problem what is wrong with it, as the end of a sentence that starts with the method
   * @param action what to do about it
   */
  public InvalidLeaderOnlyMethodException(Method method, String problem, String action) {
    super("@LeaderOnly", LeaderOnlyInvocations.methodName(method), problem, action);
  }
}
