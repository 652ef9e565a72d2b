package dev.conch.spring.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/** Names and key values of {@code conch.leaderonly} observations. */
public interface LeaderOnlyObservationConvention
    extends ObservationConvention<LeaderOnlyObservationContext> {

  @Override
  default boolean supportsContext(Observation.Context context) {
    return context instanceof LeaderOnlyObservationContext;
  }
}
