package dev.conch.spring.boot.autoconfigure.fence;

import static dev.conch.spring.observation.ConchMeterDocumentation.FENCE;

import dev.conch.jdbc.StaleTokenException;
import dev.conch.spring.fence.FenceListener;
import dev.conch.spring.observation.ConchKeyNames;
import dev.conch.spring.support.BoundRegistries;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Counts fenced transactions in {@code conch.fence}, tagged {@code conch.office} and {@code
 * conch.outcome}: {@code passed} when a transaction that passed the fence committed, {@code stale}
 * when the fence refused a stale token (the transaction rolled back). A {@link MeterBinder}, which
 * Spring Boot binds to the application's registries. Documented by {@link
 * dev.conch.spring.observation.ConchMeterDocumentation#FENCE}.
 */
public class FenceMetrics implements FenceListener, MeterBinder {

  private final BoundRegistries registries = new BoundRegistries();

  @Override
  public void bindTo(MeterRegistry registry) {
    this.registries.add(registry);
  }

  @Override
  public void committed(String office, long token) {
    count(office, "passed");
  }

  @Override
  public void refused(StaleTokenException refusal) {
    count(refusal.office(), "stale");
  }

  private void count(String office, String outcome) {
    this.registries.increment(
        Counter.builder(FENCE.getName())
            .description(FENCE.getDescription())
            .tag(ConchKeyNames.OFFICE.asString(), office)
            .tag(ConchKeyNames.FENCE_OUTCOME.asString(), outcome),
        1);
  }
}
