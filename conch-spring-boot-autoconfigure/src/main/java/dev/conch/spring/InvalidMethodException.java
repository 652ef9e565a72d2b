package dev.conch.spring;

/**
 * A method whose conch annotation ({@code @OnLeadership}, {@code @LeaderOnly}, {@code @Fenced})
 * conch cannot honour: startup fails, and the starter's failure analyzer prints the message and
 * {@link #getAction() what to change}.
 */
public class InvalidMethodException extends IllegalStateException {

  private final String method;

  private final String action;

  /**
   * @param annotation the annotation, e.g. {@code @LeaderOnly}
   * @param method the method as the message names it, e.g. {@code ReportJob.run()}
   * @param problem what is wrong with it, as the end of a sentence that starts with the method
   * @param action what to do about it
   */
  protected InvalidMethodException(
      String annotation, String method, String problem, String action) {
    super(annotation + " method " + method + " " + problem);
    this.method = method;
    this.action = action;
  }

  /** The method, as the message names it. */
  public String getMethod() {
    return this.method;
  }

  /** What to do about it. */
  public String getAction() {
    return this.action;
  }
}
