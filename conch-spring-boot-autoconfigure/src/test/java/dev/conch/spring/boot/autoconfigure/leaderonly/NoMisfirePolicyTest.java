package dev.conch.spring.boot.autoconfigure.leaderonly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.Leadership;
import dev.conch.local.LocalOffices;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.boot.autoconfigure.ConchTestSupport;
import dev.conch.spring.boot.autoconfigure.InvalidMethodFailureAnalyzer;
import dev.conch.spring.leaderonly.JobRecord;
import dev.conch.spring.leaderonly.JobRecords;
import dev.conch.spring.leaderonly.LeaderOnly;
import dev.conch.spring.leaderonly.LeaderOnlyJobs;
import dev.conch.spring.leaderonly.Misfire;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * Misfire handling costs nothing until a {@code @LeaderOnly} method asks for it: a
 * {@code @Scheduled @LeaderOnly} job without a policy runs on the leader with no record read or
 * written (so no etcd key), and no misfire thread, in term after term; a policy Spring's scheduling
 * cannot serve fails startup.
 */
@Timeout(60)
class NoMisfirePolicyTest {

  private static final Duration WAIT = Duration.ofSeconds(20);

  private static final String OFFICE = "app";

  private final LocalOffices offices = new LocalOffices();

  private final CountingJobRecords records = new CountingJobRecords();

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ConchAutoConfiguration.class, LeaderOnlyAutoConfiguration.class))
          .withPropertyValues("conch.standalone=true", "spring.application.name=" + OFFICE)
          .withBean(LocalOffices.class, () -> this.offices)
          .withBean(CountingJobRecords.class, () -> this.records);

  @Test
  void jobWithoutAPolicyTouchesNoRecordAndStartsNoThread() {
    // Threads of earlier tests' contexts end once those contexts closed.
    await().atMost(WAIT).until(() -> !misfireThreadRuns());
    this.contextRunner
        .withUserConfiguration(MisfirePolicyTest.Scheduling.class)
        .withBean(PlainJob.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              Election election = context.getBean(Election.class);
              PlainJob job = context.getBean(PlainJob.class);
              assertThat(election.awaitLeadership(WAIT)).isTrue();
              await().atMost(WAIT).until(() -> job.runs() >= 3);
              // A second term: a new leader is where missed firings would be looked for.
              long first = election.token().orElseThrow();
              this.offices.revoke(OFFICE);
              await().atMost(WAIT).until(() -> election.token().orElse(first) != first);
              int runs = job.runs();
              await().atMost(WAIT).until(() -> job.runs() >= runs + 3);
              assertThat(this.records.calls).hasValue(0);
              assertThat(misfireThreadRuns()).isFalse();
              assertThat(context.getBean(LeaderOnlyJobs.class).lastRuns(OFFICE)).isEmpty();
            });
  }

  @Test
  void policyOnAScheduledMethodWithoutSchedulingFailsStartup() {
    FailureAnalysis analysis =
        ConchTestSupport.analyze(
            this.contextRunner.withBean(PolicyJob.class), new InvalidMethodFailureAnalyzer());
    assertThat(analysis.getDescription())
        .contains(
            "@LeaderOnly method PolicyJob.run()",
            "misfire = SKIP",
            "scheduling is not enabled (no @EnableScheduling)");
    assertThat(analysis.getAction()).contains("@EnableScheduling", "misfire = NONE");
  }

  @Test
  void policyOnAMethodWithoutScheduledFailsStartup() {
    FailureAnalysis analysis =
        ConchTestSupport.analyze(
            this.contextRunner
                .withUserConfiguration(MisfirePolicyTest.Scheduling.class)
                .withBean(Unscheduled.class),
            new InvalidMethodFailureAnalyzer());
    assertThat(analysis.getDescription())
        .contains("@LeaderOnly method Unscheduled.run()", "misfire = SKIP", "is not @Scheduled");
  }

  private static boolean misfireThreadRuns() {
    return Thread.getAllStackTraces().keySet().stream()
        .anyMatch(thread -> thread.getName().equals("conch-misfire") && thread.isAlive());
  }

  static class PlainJob {

    final AtomicInteger runs = new AtomicInteger();

    int runs() {
      return this.runs.get();
    }

    @Scheduled(fixedRate = 50)
    @LeaderOnly
    void run() {
      this.runs.incrementAndGet();
    }
  }

  static class PolicyJob {

    @Scheduled(fixedRate = 50)
    @LeaderOnly(misfire = Misfire.SKIP)
    void run() {}
  }

  static class Unscheduled {

    @LeaderOnly(misfire = Misfire.SKIP)
    public void run() {}
  }

  /** Job records that count every call: with no policy, none may come. */
  static final class CountingJobRecords implements JobRecords {

    final AtomicInteger calls = new AtomicInteger();

    @Override
    public Optional<Versioned> read(String office, String job) {
      this.calls.incrementAndGet();
      return Optional.empty();
    }

    @Override
    public OptionalLong write(Leadership term, JobRecord record, long revision) {
      this.calls.incrementAndGet();
      return OptionalLong.empty();
    }
  }
}
