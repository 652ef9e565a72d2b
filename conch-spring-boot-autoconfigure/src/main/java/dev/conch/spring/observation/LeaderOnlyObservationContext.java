package dev.conch.spring.observation;

import dev.conch.Leadership;
import io.micrometer.observation.Observation;
import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;

/**
 * What a {@code conch.leaderonly} observation knows of its call: the method, its office and, when
 * it runs, its term. The error, when the method threw, is the context's {@link #getError()}.
 */
public class LeaderOnlyObservationContext extends Observation.Context {

  private final Class<?> targetClass;

  private final Method method;

  private final String office;

  private final @Nullable Leadership leadership;

  /**
   * The context of one call.
   *
   * @param targetClass the class of the bean the method is called on
   * @param method the method
   * @param office the office the method needs
   * @param leadership the term the method runs in, or {@code null} when the call is skipped
   */
  public LeaderOnlyObservationContext(
      Class<?> targetClass, Method method, String office, @Nullable Leadership leadership) {
    this.targetClass = targetClass;
    this.method = method;
    this.office = office;
    this.leadership = leadership;
  }

  /** The class of the bean the method is called on. */
  public Class<?> getTargetClass() {
    return this.targetClass;
  }

  /** The method. */
  public Method getMethod() {
    return this.method;
  }

  /** The office the method needs. */
  public String getOffice() {
    return this.office;
  }

  /** The term the method runs in; {@code null} when the call is skipped. */
  public @Nullable Leadership getLeadership() {
    return this.leadership;
  }

  /** Whether the call was skipped: this instance did not lead the office. */
  public boolean isSkipped() {
    return this.leadership == null;
  }
}
