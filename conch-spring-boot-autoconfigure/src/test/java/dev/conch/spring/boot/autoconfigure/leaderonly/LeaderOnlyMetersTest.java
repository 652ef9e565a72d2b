package dev.conch.spring.boot.autoconfigure.leaderonly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.local.LocalOffices;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.boot.autoconfigure.metrics.ConchMetricsAutoConfiguration;
import dev.conch.spring.boot.autoconfigure.observation.ConchObservationAutoConfiguration;
import dev.conch.spring.leaderonly.LeaderOnly;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Each {@link LeaderOnly @LeaderOnly} call is counted once when the application has both a {@code
 * MeterRegistry} and an {@code ObservationRegistry} (Boot's, whose meter handler makes a timer of
 * each observation): the observation is the only record of the call, skipped calls included. The
 * starter records no timer of its own: without an {@code ObservationRegistry} there is none.
 */
@Timeout(60)
class LeaderOnlyMetersTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private final LocalOffices offices = new LocalOffices();

  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

  /**
   * Boot's metrics without its observations: a {@code MeterRegistry} and no {@code
   * ObservationRegistry}.
   */
  private final ApplicationContextRunner metricsOnly =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  MetricsAutoConfiguration.class,
                  ConchObservationAutoConfiguration.class,
                  ConchAutoConfiguration.class,
                  LeaderOnlyAutoConfiguration.class))
          .withPropertyValues("conch.standalone=true", "spring.application.name=app")
          .withBean(LocalOffices.class, () -> this.offices)
          .withBean(MeterRegistry.class, () -> this.meters)
          .withBean(Job.class);

  /** As a Boot application has them: metrics with observations. */
  private final ApplicationContextRunner contextRunner =
      this.metricsOnly.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class));

  @Test
  void aCallThatRunsIsCountedOnce() {
    this.contextRunner.run(
        context -> {
          assertThat(context.getBean(Election.class).awaitLeadership(WAIT)).isTrue();

          assertThat(context.getBean(Job.class).run()).isEqualTo("ran");

          assertThat(countedCalls()).isEqualTo(1);
          assertThat(timed("SUCCESS")).isEqualTo(1);
        });
  }

  @Test
  void aSkippedCallIsCountedOnceWithTheOutcomeSkipped() throws Exception {
    try (Election other =
        this.offices.election(ElectionOptions.builder("app").candidateId("other").build())) {
      other.start();
      assertThat(other.awaitLeadership(WAIT)).isTrue();
      this.contextRunner.run(
          context -> {
            await().atMost(WAIT).until(() -> this.offices.leader("app").isPresent());

            assertThat(context.getBean(Job.class).run()).isNull();

            assertThat(countedCalls()).isEqualTo(1);
            assertThat(timed("SKIPPED")).isEqualTo(1);
          });
    }
  }

  @Test
  void withoutAnObservationRegistryTheStarterRecordsNoTimerOfItsOwn() {
    this.metricsOnly.run(
        context -> {
          assertThat(context).doesNotHaveBean(ObservationRegistry.class);
          assertThat(context.getBean(Election.class).awaitLeadership(WAIT)).isTrue();

          assertThat(context.getBean(Job.class).run()).isEqualTo("ran");

          assertThat(this.meters.find("conch.leaderonly").meters()).isEmpty();
        });
  }

  @Test
  void theTimerHasTheObservationsLowCardinalityKeysWithConchsPrefixed() {
    this.contextRunner.run(
        context -> {
          assertThat(context.getBean(Election.class).awaitLeadership(WAIT)).isTrue();

          context.getBean(Job.class).run();

          assertThat(this.meters.get("conch.leaderonly").timer().getId().getTags())
              .extracting(Tag::getKey)
              .contains("code.namespace", "code.function", "conch.office", "outcome", "exception")
              .doesNotContain("office", "conch.token");
        });
  }

  @Test
  void aCallItsTermInterruptedIsCountedFromTheLeadershipLostEvent() {
    this.contextRunner
        .withConfiguration(AutoConfigurations.of(ConchMetricsAutoConfiguration.class))
        .withBean(LeaderOnlyTest.LongJob.class)
        .run(
            context -> {
              Election election = context.getBean(Election.class);
              assertThat(election.awaitLeadership(WAIT)).isTrue();
              LeaderOnlyTest.LongJob job = context.getBean(LeaderOnlyTest.LongJob.class);
              ExecutorService caller = Executors.newSingleThreadExecutor();
              try {
                Future<String> result = caller.submit(job::run);
                assertThat(job.started().await(10, TimeUnit.SECONDS)).isTrue();

                // The lease is gone: the term's stop interrupts the call at once.
                this.offices.revoke("app");

                assertThat(result.get(10, TimeUnit.SECONDS)).startsWith("interrupted");
                await()
                    .atMost(WAIT)
                    .untilAsserted(
                        () ->
                            assertThat(this.meters.find("conch.term.interrupted").counters())
                                .singleElement()
                                .satisfies(
                                    counter -> {
                                      assertThat(counter.getId().getTag("conch.office"))
                                          .isEqualTo("app");
                                      assertThat(counter.getId().getTag("conch.work"))
                                          .endsWith("run()");
                                      assertThat(counter.count()).isEqualTo(1);
                                    }));
              } finally {
                caller.shutdownNow();
              }
            });
  }

  /** What every counter and timer of a {@code conch.leaderonly} name adds up to. */
  private double countedCalls() {
    double total = 0;
    for (Meter meter : this.meters.getMeters()) {
      if (!meter.getId().getName().startsWith("conch.leaderonly")) {
        continue;
      }
      if (meter instanceof Timer timer) {
        total += timer.count();
      } else if (meter instanceof Counter counter) {
        total += counter.count();
      } else if (meter instanceof FunctionCounter counter) {
        total += counter.count();
      }
    }
    return total;
  }

  private double timed(String outcome) {
    Timer timer =
        this.meters
            .find("conch.leaderonly")
            .tags("conch.office", "app", "code.function", "run", "outcome", outcome)
            .timer();
    return (timer != null) ? timer.count() : 0;
  }

  static class Job {

    @LeaderOnly
    public String run() {
      return "ran";
    }
  }
}
