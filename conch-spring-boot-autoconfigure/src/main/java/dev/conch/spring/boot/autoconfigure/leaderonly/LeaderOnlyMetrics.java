package dev.conch.spring.boot.autoconfigure.leaderonly;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Counts the calls of {@link LeaderOnly @LeaderOnly} methods in {@code
 * conch.leaderonly.invocations}, tagged {@code office}, {@code method} ({@code Class.method()}) and
 * {@code outcome} ({@code run} or {@code skipped}).
 */
public class LeaderOnlyMetrics implements LeaderOnlyInvocations {

  /** The name of the counter. */
  public static final String NAME = "conch.leaderonly.invocations";

  private final MeterRegistry registry;

  /** Counts in {@code registry}. */
  public LeaderOnlyMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  @Override
  public void run(String office, String method) {
    counter(office, method, "run").increment();
  }

  @Override
  public void skipped(String office, String method) {
    counter(office, method, "skipped").increment();
  }

  private Counter counter(String office, String method, String outcome) {
    return Counter.builder(NAME)
        .description("Calls of @LeaderOnly methods, run (leading) or skipped (not leading)")
        .tag("office", office)
        .tag("method", method)
        .tag("outcome", outcome)
        .register(this.registry);
  }
}
