package dev.conch.spring.observation;

import dev.conch.Leadership;
import io.micrometer.observation.Observation;

/** What a {@code conch.leaderonly} observation knows of its call: the method and its term. */
public class LeaderOnlyObservationContext extends Observation.Context {

  private final String method;

  private final Leadership leadership;

  /**
   * The context of one call.
   *
   * @param method the method, as {@code Class.method()}
   */
  public LeaderOnlyObservationContext(String method, Leadership leadership) {
    this.method = method;
    this.leadership = leadership;
  }

  /** The method, as {@code Class.method()}. */
  public String getMethod() {
    return this.method;
  }

  /** The term the method runs in. */
  public Leadership getLeadership() {
    return this.leadership;
  }
}
