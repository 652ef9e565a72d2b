package dev.conch.spring.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/** Names and key values of {@code conch.hook} observations. */
public interface HookObservationConvention extends ObservationConvention<HookObservationContext> {

  @Override
  default boolean supportsContext(Observation.Context context) {
    return context instanceof HookObservationContext;
  }
}
