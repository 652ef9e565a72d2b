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
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * Misfire handling costs nothing where it is not used: a {@code @LeaderOnly} method that Spring
 * does not schedule (none is {@code @Scheduled}, or scheduling is not enabled, as in many tests)
 * and a job that opts out ({@code misfire = NONE}) run on the leader with no record read or written
 * (so no etcd key) and no misfire thread, in term after term; only {@code RUN_ONCE}, which cannot
 * work without Spring's schedule, fails startup there.
 */
@Timeout(60)
@ExtendWith(OutputCaptureExtension.class)
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
  void aJobThatOptsOutTouchesNoRecordAndStartsNoThread() {
    // Threads of earlier tests' contexts end once those contexts closed.
    await().atMost(WAIT).until(() -> !misfireThreadRuns());
    this.contextRunner
        .withUserConfiguration(MisfirePolicyTest.Scheduling.class)
        .withBean(OptedOutJob.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              Election election = context.getBean(Election.class);
              OptedOutJob job = context.getBean(OptedOutJob.class);
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
  void aMethodThatIsNotScheduledTouchesNoRecord() {
    this.contextRunner
        .withUserConfiguration(MisfirePolicyTest.Scheduling.class)
        .withBean(Unscheduled.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(Election.class).awaitLeadership(WAIT)).isTrue();
              Unscheduled job = context.getBean(Unscheduled.class);
              job.run();
              job.run();
              assertThat(job.runs()).isEqualTo(2);
              assertThat(this.records.calls).hasValue(0);
              assertThat(misfireThreadRuns()).isFalse();
            });
  }

  @Test
  void theDefaultPolicyWithoutSchedulingStartsRecordsNothingAndSaysSo(CapturedOutput output) {
    this.contextRunner
        .withBean(ScheduledJob.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(Election.class).awaitLeadership(WAIT)).isTrue();
              ScheduledJob job = context.getBean(ScheduledJob.class);
              job.run();
              assertThat(job.runs()).isEqualTo(1);
              assertThat(this.records.calls).hasValue(0);
            });
    assertThat(output)
        .contains(
            "ScheduledJob.run() is @LeaderOnly and @Scheduled, but scheduling is not enabled (no"
                + " @EnableScheduling)",
            "its calls are not recorded as firings");
  }

  @Test
  void runOnceWithoutSchedulingFailsStartup() {
    FailureAnalysis analysis =
        ConchTestSupport.analyze(
            this.contextRunner.withBean(RunOnceJob.class), new InvalidMethodFailureAnalyzer());
    assertThat(analysis.getDescription())
        .contains(
            "@LeaderOnly method RunOnceJob.run()",
            "misfire = RUN_ONCE",
            "scheduling is not enabled (no @EnableScheduling)");
    assertThat(analysis.getAction()).contains("@EnableScheduling", "misfire = SKIP");
  }

  @Test
  void runOnceOnAMethodWithoutScheduledFailsStartup() {
    FailureAnalysis analysis =
        ConchTestSupport.analyze(
            this.contextRunner
                .withUserConfiguration(MisfirePolicyTest.Scheduling.class)
                .withBean(UnscheduledRunOnce.class),
            new InvalidMethodFailureAnalyzer());
    assertThat(analysis.getDescription())
        .contains(
            "@LeaderOnly method UnscheduledRunOnce.run()",
            "misfire = RUN_ONCE",
            "is not @Scheduled");
  }

  private static boolean misfireThreadRuns() {
    return Thread.getAllStackTraces().keySet().stream()
        .anyMatch(thread -> thread.getName().equals("conch-misfire") && thread.isAlive());
  }

  abstract static class Counted {

    final AtomicInteger runs = new AtomicInteger();

    int runs() {
      return this.runs.get();
    }
  }

  static class OptedOutJob extends Counted {

    @Scheduled(fixedRate = 50)
    @LeaderOnly(misfire = Misfire.NONE)
    void run() {
      this.runs.incrementAndGet();
    }
  }

  static class ScheduledJob extends Counted {

    @Scheduled(fixedRate = 50)
    @LeaderOnly
    public void run() {
      this.runs.incrementAndGet();
    }
  }

  static class Unscheduled extends Counted {

    @LeaderOnly
    public void run() {
      this.runs.incrementAndGet();
    }
  }

  static class RunOnceJob {

    @Scheduled(fixedRate = 50)
    @LeaderOnly(misfire = Misfire.RUN_ONCE)
    void run() {}
  }

  static class UnscheduledRunOnce {

    @LeaderOnly(misfire = Misfire.RUN_ONCE)
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
