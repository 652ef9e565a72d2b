package dev.conch.spring;

import dev.conch.Leadership;
import dev.conch.spring.observation.DefaultLeaderOnlyObservationConvention;
import dev.conch.spring.observation.LeaderOnlyObservationContext;
import dev.conch.spring.observation.LeaderOnlyObservationConvention;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * Observes each call of a {@code @LeaderOnly} method that runs ({@code conch.leaderonly}); skipped
 * calls are only counted and logged. The observation is a child of the one current on the calling
 * thread (a {@code @Scheduled} run's, for instance), and current while the method runs.
 */
final class LeaderOnlyObservations implements LeaderOnlyInvocations {

  private final ObservationRegistry registry;

  private final LeaderOnlyObservationConvention convention;

  /** Observations in {@code registry} named by the default convention. */
  LeaderOnlyObservations(ObservationRegistry registry) {
    this(registry, new DefaultLeaderOnlyObservationConvention());
  }

  /** Observations in {@code registry} named by {@code convention}. */
  LeaderOnlyObservations(ObservationRegistry registry, LeaderOnlyObservationConvention convention) {
    this.registry = registry;
    this.convention = convention;
  }

  @Override
  public @Nullable Object proceed(Leadership leadership, String method, Call call)
      throws Throwable {
    Observation observation =
        Observation.createNotStarted(
                null,
                this.convention,
                () -> new LeaderOnlyObservationContext(method, leadership),
                this.registry)
            .start();
    try (Observation.Scope scope = observation.openScope()) {
      return call.proceed();
    } catch (Throwable ex) {
      observation.error(ex);
      throw ex;
    } finally {
      observation.stop();
    }
  }
}
