package dev.conch.spring.fence;

import dev.conch.spring.InvalidMethodException;
import java.lang.reflect.Method;

/** A {@link Fenced @Fenced} method that conch cannot fence; fails startup. */
public class InvalidFencedMethodException extends InvalidMethodException {

  /**
   * @param method the method
   * @param problem what is wrong with it, as the end of a sentence that starts with the method
   * @param action what to do about it
   */
  public InvalidFencedMethodException(Method method, String problem, String action) {
    super("@Fenced", describe(method), problem, action);
  }

  static String describe(Method method) {
    return method.getDeclaringClass().getSimpleName() + "." + method.getName() + "()";
  }
}
