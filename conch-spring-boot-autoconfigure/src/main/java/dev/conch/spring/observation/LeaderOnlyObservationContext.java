package dev.conch.spring.observation;

import dev.conch.Leadership;
import io.micrometer.observation.Observation;
import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;

/**
 * What a {@code conch.leaderonly} observation knows of its call: the method (or, for a task run
 * through {@code LeaderOnlyTasks}, the task's name), its office and, when it runs, its term. The
 * error, when the call threw, is the context's {@link #getError()}.
 */
public class LeaderOnlyObservationContext extends Observation.Context {

  private final @Nullable Class<?> targetClass;

  private final @Nullable Method method;

  private final String function;

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
    this.function = method.getName();
    this.office = office;
    this.leadership = leadership;
  }

  /**
   * The context of one call of a task run through {@code LeaderOnlyTasks}.
   *
   * @param task the task's name, as its caller gave it
   * @param office the office the task needs
   * @param leadership the term the task runs in, or {@code null} when the call is skipped
   */
  public LeaderOnlyObservationContext(String task, String office, @Nullable Leadership leadership) {
    this.targetClass = null;
    this.method = null;
    this.function = task;
    this.office = office;
    this.leadership = leadership;
  }

  /** The class of the bean the method is called on; {@code null} for a task. */
  public @Nullable Class<?> getTargetClass() {
    return this.targetClass;
  }

  /** The method; {@code null} for a task. */
  public @Nullable Method getMethod() {
    return this.method;
  }

  /**
   * The name of the method, or of the task: its {@code code.function} ({@link #getName()} is the
   * observation's).
   */
  public String getFunctionName() {
    return this.function;
  }

  /** Whether the call is a task's, run through {@code LeaderOnlyTasks}, not a method's. */
  public boolean isTask() {
    return this.method == null;
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
