package dev.conch.spring.boot.autoconfigure.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.LossReason;
import dev.conch.local.LocalOffices;
import dev.conch.spring.CampaigningEvent;
import dev.conch.spring.Elections;
import dev.conch.spring.LeaderObservedEvent;
import dev.conch.spring.LeadershipAcquiredEvent;
import dev.conch.spring.LeadershipLostEvent;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.boot.autoconfigure.OfficeTimings;
import dev.conch.spring.boot.metrics.ConchMetrics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The meters an alert reads per office without code: {@code conch.office.leaderless} and {@code
 * conch.office.leaderless.observed} (how long the office has been, and was in all, without a leader
 * as this instance saw it) and {@code conch.office.failover.budget} (its worst crash fail-over).
 */
@Timeout(60)
class OfficeMetersTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ConchAutoConfiguration.class,
                  MetricsAutoConfiguration.class,
                  ConchMetricsAutoConfiguration.class))
          .withPropertyValues("conch.standalone=true", "conch.office=billing");

  @Test
  void leaderWhoseKeyWasDeletedCountsTheOfficeLeaderlessUntilATermBeginsAgain() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    LocalOffices offices = new LocalOffices();
    this.contextRunner
        .withBean(MeterRegistry.class, () -> registry)
        .withBean(LocalOffices.class, () -> offices)
        .run(
            context -> {
              Election election = context.getBean(Election.class);
              assertThat(election.awaitLeadership(WAIT)).isTrue();
              await().atMost(WAIT).until(() -> leaderless(registry, "billing") != null);
              assertThat(leaderless(registry, "billing").value()).isZero();
              assertThat(observed(registry, "billing").count()).isZero();

              // Nobody may win: the candidate whose key went campaigns and waits.
              offices.holdVacant("billing");
              offices.revoke("billing");

              await().atMost(WAIT).until(() -> leaderless(registry, "billing").value() >= 0.5);
              assertThat(election.isLeader()).isFalse();
              double before = observed(registry, "billing").count();
              assertThat(before).isGreaterThanOrEqualTo(0.5);
              await().atMost(WAIT).until(() -> observed(registry, "billing").count() > before);

              offices.reopen("billing");

              assertThat(election.awaitLeadership(WAIT)).isTrue();
              await().atMost(WAIT).until(() -> leaderless(registry, "billing").value() == 0);
              assertThat(observed(registry, "billing").count()).isGreaterThan(before);
            });
  }

  @Test
  void officesWithoutATimingBudgetHaveNoFailoverBudget() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    this.contextRunner
        .withBean(MeterRegistry.class, () -> registry)
        .run(
            context -> {
              assertThat(context.getBean(Election.class).awaitLeadership(WAIT)).isTrue();
              await().atMost(WAIT).until(() -> leaderless(registry, "billing") != null);
              assertThat(context).doesNotHaveBean(OfficeTimings.class);
              assertThat(registry.find("conch.office.failover.budget").meters()).isEmpty();
            });
  }

  @Test
  void failoverBudgetIsTheOfficesCrashFailoverTheTtlPlusEtcdsExpiryScan() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    this.contextRunner
        .withBean(MeterRegistry.class, () -> registry)
        .withPropertyValues(
            "conch.standalone=false", "conch.etcd.endpoints=http://127.0.0.1:1", "conch.ttl=4s")
        .run(
            context -> {
              // Nothing of etcd is asked: the budget follows from the settings alone.
              await()
                  .atMost(WAIT)
                  .until(
                      () ->
                          registry
                                  .find("conch.office.failover.budget")
                                  .tag("conch.office", "billing")
                                  .gauge()
                              != null);
              Gauge budget =
                  registry
                      .get("conch.office.failover.budget")
                      .tag("conch.office", "billing")
                      .gauge();
              assertThat(budget.value()).isEqualTo(4.5);
              assertThat(budget.getId().getBaseUnit()).isEqualTo("seconds");
              assertThat(
                      context
                          .getBean(OfficeTimings.class)
                          .of("billing")
                          .orElseThrow()
                          .crashFailover())
                  .isEqualTo(Duration.ofMillis(4500));
            });
  }

  @Test
  void vacancyRunsFromNobodySeenLeadingOrTheOwnTermsEndToTheNextLeaderSeen() {
    AtomicLong nanos = new AtomicLong();
    try (Election reports =
        new LocalOffices().election(ElectionOptions.builder("reports").build())) {
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      ConchMetrics metrics =
          new ConchMetrics(
              new Elections(List.of(reports), null), null, office -> Optional.empty(), nanos::get);
      metrics.bindTo(registry);

      // Before this instance has seen the office without a leader: 0, not the time since start.
      metrics.onApplicationEvent(new CampaigningEvent(reports, true));
      advance(nanos, 7);
      assertSeconds(registry, 0, 0);

      metrics.onApplicationEvent(new LeaderObservedEvent(reports, Optional.empty()));
      advance(nanos, 3);
      assertSeconds(registry, 3, 3);

      metrics.onApplicationEvent(
          new LeaderObservedEvent(reports, Optional.of(reports.candidate())));
      advance(nanos, 5);
      assertSeconds(registry, 0, 3);

      metrics.onApplicationEvent(new LeadershipAcquiredEvent(reports, 42, reports.candidate()));
      metrics.onApplicationEvent(
          new LeadershipLostEvent(reports, 42, reports.candidate(), LossReason.KEY_DELETED));
      advance(nanos, 2);
      // A failed acquire hook in the next attempt does not start the vacancy again.
      metrics.onApplicationEvent(
          new LeadershipLostEvent(reports, 43, reports.candidate(), LossReason.ACQUIRE_FAILED));
      advance(nanos, 1);
      assertSeconds(registry, 3, 6);

      metrics.onApplicationEvent(new LeadershipAcquiredEvent(reports, 44, reports.candidate()));
      // Resigning is leaving: this instance will not see who leads next.
      metrics.onApplicationEvent(
          new LeadershipLostEvent(reports, 44, reports.candidate(), LossReason.RESIGNED));
      advance(nanos, 4);
      assertSeconds(registry, 0, 6);
    }
  }

  @Test
  void candidateThatLeftTheElectionStopsCountingTheVacancyItSaw() {
    AtomicLong nanos = new AtomicLong();
    Election reports = new LocalOffices().election(ElectionOptions.builder("reports").build());
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ConchMetrics metrics =
        new ConchMetrics(
            new Elections(List.of(reports), null), null, office -> Optional.empty(), nanos::get);
    metrics.bindTo(registry);
    metrics.onApplicationEvent(
        new LeadershipLostEvent(reports, 42, reports.candidate(), LossReason.TRANSFERRED));
    advance(nanos, 2);
    assertSeconds(registry, 2, 2);

    // No event says that a candidate which was not leading left: its state does.
    reports.close();
    advance(nanos, 10);

    assertSeconds(registry, 0, 2);
  }

  private static void advance(AtomicLong nanos, long seconds) {
    nanos.addAndGet(TimeUnit.SECONDS.toNanos(seconds));
  }

  private static void assertSeconds(MeterRegistry registry, double leaderless, double observed) {
    assertThat(leaderless(registry, "reports").value()).as("leaderless").isEqualTo(leaderless);
    assertThat(observed(registry, "reports").count()).as("observed").isEqualTo(observed);
  }

  private static Gauge leaderless(MeterRegistry registry, String office) {
    return registry.find("conch.office.leaderless").tag("conch.office", office).gauge();
  }

  private static FunctionCounter observed(MeterRegistry registry, String office) {
    return registry
        .find("conch.office.leaderless.observed")
        .tag("conch.office", office)
        .functionCounter();
  }
}
