package dev.conch.spring.fence;

import java.lang.reflect.Method;

/** A {@link Fenced @Fenced} method that conch cannot fence; fails startup. */
public class InvalidFencedMethodException extends IllegalStateException {

  private final transient Method method;

  private final String action;

  /**
   * @param method the method
   * @param problem what is wrong with it, as the end of a sentence that starts with the method
   * @param action what to do about it
   */
  public InvalidFencedMethodException(Method method, String problem, String action) {
    super("@Fenced method " + describe(method) + " " + problem);
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

  static String describe(Method method) {
    return method.getDeclaringClass().getSimpleName() + "." + method.getName() + "()";
  }
}
