package dev.conch.spring.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/** Names and key values of {@code conch.leadership} observations. */
public interface LeadershipObservationConvention
    extends ObservationConvention<LeadershipObservationContext> {

  @Override
  default boolean supportsContext(Observation.Context context) {
    return context instanceof LeadershipObservationContext;
  }
}
