package dev.conch.spring.boot.autoconfigure.leaderonly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.Holder;
import dev.conch.local.LocalOffices;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.leaderonly.InMemoryJobRecords;
import dev.conch.spring.leaderonly.LeaderOnly;
import dev.conch.spring.leaderonly.Misfire;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * A term won while the application starts (campaigning begins before Spring schedules the tasks, on
 * the context's refresh) looks for missed firings once the schedule Spring holds can be read: the
 * next instance runs the firing missed since the last one stopped.
 */
@Timeout(60)
class MisfireAtStartTest {

  private static final Duration WAIT = Duration.ofSeconds(20);

  private static final String OFFICE = "app";

  private static final long DELAY_MILLIS = 100;

  private final LocalOffices offices = new LocalOffices();

  private final InMemoryJobRecords records =
      new InMemoryJobRecords(office -> this.offices.leader(office).map(Holder::rev).orElse(0L));

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  MetricsAutoConfiguration.class,
                  ConchAutoConfiguration.class,
                  LeaderOnlyAutoConfiguration.class))
          .withPropertyValues("conch.standalone=true", "spring.application.name=" + OFFICE)
          .withBean(LocalOffices.class, () -> this.offices)
          .withBean(InMemoryJobRecords.class, () -> this.records)
          .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
          .withUserConfiguration(MisfirePolicyTest.Scheduling.class)
          .withBean(Job.class);

  @Test
  void nextInstanceRunsTheFiringMissedSinceTheLastOneStopped() {
    // The first instance runs the job; its record outlives it.
    this.contextRunner
        .withPropertyValues("conch.candidate.id=first", "jobs.initial=0")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(Election.class).awaitLeadership(WAIT)).isTrue();
              Job job = context.getBean(Job.class);
              await().atMost(WAIT).until(() -> job.runs() >= 1);
            });
    // The firing after that run is due 100 ms after it ended; the office stays vacant past it,
    // or the next instance could lead before the firing was missed (then it is its own to run).
    String name = Job.class.getName().replace('$', '.') + ".run()";
    Instant ended =
        Objects.requireNonNull(this.records.read(OFFICE, name).orElseThrow().record().ended());
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(10))
        .until(() -> Instant.now().isAfter(ended.plusMillis(DELAY_MILLIS)));
    // The next one's scheduler would not run it for an hour: only its misfire recovery does.
    this.contextRunner
        .withPropertyValues("conch.candidate.id=second", "jobs.initial=1h")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              Job job = context.getBean(Job.class);
              await()
                  .atMost(WAIT)
                  .until(() -> MisfirePolicyTest.count(context, "misfire_recovered") == 1);
              assertThat(job.runs()).isEqualTo(1);
            });
  }

  static class Job {

    final AtomicInteger runs = new AtomicInteger();

    int runs() {
      return this.runs.get();
    }

    @Scheduled(fixedDelay = DELAY_MILLIS, initialDelayString = "${jobs.initial}")
    @LeaderOnly(misfire = Misfire.RUN_ONCE)
    void run() {
      this.runs.incrementAndGet();
    }
  }
}
