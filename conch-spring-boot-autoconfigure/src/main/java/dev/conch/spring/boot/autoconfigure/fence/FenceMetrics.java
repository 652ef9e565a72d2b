package dev.conch.spring.boot.autoconfigure.fence;

import dev.conch.jdbc.StaleTokenException;
import dev.conch.spring.boot.metrics.ConchMeterDocumentation;
import dev.conch.spring.boot.metrics.ConchMeterDocumentation.KeyNames;
import dev.conch.spring.fence.FenceListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Counts fenced transactions in {@code conch.fence}, tagged {@code office} and {@code outcome}:
 * {@code passed} when a transaction that passed the fence committed, {@code stale} when the fence
 * refused a stale token (the transaction rolled back). Documented by {@link
 * ConchMeterDocumentation#FENCE}.
 */
public class FenceMetrics implements FenceListener {

  private final MeterRegistry registry;

  /** Counts in {@code registry}. */
  public FenceMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  @Override
  public void committed(String office, long token) {
    counter(office, "passed").increment();
  }

  @Override
  public void refused(StaleTokenException refusal) {
    counter(refusal.office(), "stale").increment();
  }

  private Counter counter(String office, String outcome) {
    return Counter.builder(ConchMeterDocumentation.FENCE.getName())
        .description(ConchMeterDocumentation.FENCE.getDescription())
        .tag(KeyNames.OFFICE.asString(), office)
        .tag(KeyNames.FENCE_OUTCOME.asString(), outcome)
        .register(this.registry);
  }
}
