package dev.conch.spring.observation;

import dev.conch.Leadership;
import dev.conch.LossReason;
import dev.conch.spring.OnLeadership.Transition;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/** What a {@code conch.hook} observation knows of its call: the hook, its transition, its term. */
public class HookObservationContext extends Observation.Context {

  private final String hook;

  private final Transition transition;

  private final Leadership leadership;

  private final @Nullable LossReason reason;

  /**
   * The context of one call.
   *
   * @param hook the hook, as {@code bean.method()}
   * @param reason why the term ended, on {@link Transition#LOST} only
   */
  public HookObservationContext(
      String hook, Transition transition, Leadership leadership, @Nullable LossReason reason) {
    this.hook = hook;
    this.transition = transition;
    this.leadership = leadership;
    this.reason = reason;
  }

  /** The hook, as {@code bean.method()}. */
  public String getHook() {
    return this.hook;
  }

  /** The transition the hook runs on. */
  public Transition getTransition() {
    return this.transition;
  }

  /** The term the hook runs in. */
  public Leadership getLeadership() {
    return this.leadership;
  }

  /** Why the term ended, on {@link Transition#LOST}; else {@code null}. */
  public @Nullable LossReason getReason() {
    return this.reason;
  }
}
