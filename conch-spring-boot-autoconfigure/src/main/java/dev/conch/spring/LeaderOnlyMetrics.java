package dev.conch.spring;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Optional;
import org.springframework.beans.factory.BeanFactory;

/**
 * Counts the calls of {@link LeaderOnly @LeaderOnly} methods in {@code
 * conch.leaderonly.invocations}, tagged {@code office}, {@code method} ({@code Class.method()}) and
 * {@code outcome} ({@code run} or {@code skipped}).
 */
final class LeaderOnlyMetrics implements LeaderOnlyInvocations {

  /** The name of the counter. */
  static final String NAME = "conch.leaderonly.invocations";

  private final MeterRegistry registry;

  /** Counts in {@code registry}. */
  LeaderOnlyMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  /** Counts in the application's {@code MeterRegistry}, if it has one. */
  static Optional<LeaderOnlyInvocations> of(BeanFactory beanFactory) {
    return Optional.ofNullable(beanFactory.getBeanProvider(MeterRegistry.class).getIfUnique())
        .map(LeaderOnlyMetrics::new);
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
