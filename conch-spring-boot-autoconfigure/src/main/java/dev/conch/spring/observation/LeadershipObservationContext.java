package dev.conch.spring.observation;

import dev.conch.Leadership;
import dev.conch.LossReason;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/** What a {@code conch.leadership} observation knows of its term: office, token, how it ended. */
public class LeadershipObservationContext extends Observation.Context {

  private final Leadership leadership;

  private volatile @Nullable LossReason reason;

  /** The context of the term {@code leadership}. */
  public LeadershipObservationContext(Leadership leadership) {
    this.leadership = leadership;
  }

  /** The term. */
  public Leadership getLeadership() {
    return this.leadership;
  }

  /** Why the term ended, {@code null} while it lasts. */
  public @Nullable LossReason getReason() {
    return this.reason;
  }

  /** Records why the term ended. */
  public void setReason(LossReason reason) {
    this.reason = reason;
  }
}
