package dev.conch.spring.leaderonly;

import static dev.conch.spring.observation.ConchMeterDocumentation.LEADER_ONLY_FIRINGS;

import dev.conch.spring.observation.ConchKeyNames;
import dev.conch.spring.support.BoundRegistries;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * The counter {@code conch.leaderonly.firings} of each {@code @Scheduled @LeaderOnly} job, tagged
 * {@code conch.office}, {@code conch.job} ({@code Class.method()}) and {@code conch.outcome}: a
 * {@link MeterBinder}, which Spring Boot binds to the application's registries. No observation
 * counts what becomes of a firing (a missed one is no call), so it is a meter of its own.
 */
public final class LeaderOnlyFirings implements MeterBinder {

  private final BoundRegistries registries = new BoundRegistries();

  /** Counts the firings of {@code jobs} from now on. */
  public LeaderOnlyFirings(LeaderOnlyJobs jobs) {
    jobs.countIn(this::count);
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    this.registries.add(registry);
  }

  private void count(String office, String job, String outcome, long count) {
    this.registries.increment(
        Counter.builder(LEADER_ONLY_FIRINGS.getName())
            .description(LEADER_ONLY_FIRINGS.getDescription())
            .tag(ConchKeyNames.OFFICE.asString(), office)
            .tag(ConchKeyNames.JOB.asString(), job)
            .tag(ConchKeyNames.FIRING_OUTCOME.asString(), outcome),
        count);
  }
}
