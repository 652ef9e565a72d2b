package dev.conch.spring.leaderonly;

import dev.conch.spring.observation.DefaultLeaderOnlyObservationConvention;
import dev.conch.spring.observation.LeaderOnlyObservationContext;
import dev.conch.spring.observation.LeaderOnlyObservationConvention;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * Observes each call of a {@code @LeaderOnly} method ({@code conch.leaderonly}): a call that runs
 * is a child of the observation current on the calling thread (a {@code @Scheduled} run's) and
 * current while the method runs; a skipped call is an observation of its own, started and stopped
 * at once, with the outcome {@code SKIPPED}.
 *
 * <p>Infrastructure of the starter: its observation auto-configuration makes it of the
 * application's {@code ObservationRegistry} and convention; applications do not use it.
 */
public final class LeaderOnlyObservations implements LeaderOnlyObserver {

  private final ObservationRegistry registry;

  private static final LeaderOnlyObservationConvention DEFAULT =
      new DefaultLeaderOnlyObservationConvention();

  private final @Nullable LeaderOnlyObservationConvention custom;

  /**
   * Observations in {@code registry}, named by the application's {@code custom} convention when it
   * has one (it beats the registry's global conventions), else by those, else by the default.
   *
   * @param registry the application's registry
   * @param custom the application's convention, if any
   */
  public LeaderOnlyObservations(
      ObservationRegistry registry, @Nullable LeaderOnlyObservationConvention custom) {
    this.registry = registry;
    this.custom = custom;
  }

  @Override
  public void skipped(LeaderOnlyObservationContext context) {
    observation(context).start().stop();
  }

  @Override
  public @Nullable Object run(LeaderOnlyObservationContext context, LeaderOnlyInvocations.Call call)
      throws Throwable {
    Observation observation = observation(context).start();
    try (Observation.Scope scope = observation.openScope()) {
      return call.proceed();
    } catch (Throwable ex) {
      observation.error(ex);
      throw ex;
    } finally {
      observation.stop();
    }
  }

  /** Whether it records anything: not with a no-op registry. */
  boolean active() {
    return !this.registry.isNoop();
  }

  private Observation observation(LeaderOnlyObservationContext context) {
    return Observation.createNotStarted(this.custom, DEFAULT, () -> context, this.registry);
  }
}
