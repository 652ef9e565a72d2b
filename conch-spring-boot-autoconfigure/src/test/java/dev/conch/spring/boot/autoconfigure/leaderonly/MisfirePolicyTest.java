package dev.conch.spring.boot.autoconfigure.leaderonly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.Holder;
import dev.conch.local.LocalOffices;
import dev.conch.spring.boot.actuate.endpoint.ConchEndpoint;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.boot.autoconfigure.ConchTestSupport;
import dev.conch.spring.boot.autoconfigure.InvalidMethodFailureAnalyzer;
import dev.conch.spring.boot.autoconfigure.actuate.ConchEndpointAutoConfiguration;
import dev.conch.spring.leaderonly.InMemoryJobRecords;
import dev.conch.spring.leaderonly.JobRecord;
import dev.conch.spring.leaderonly.LeaderOnly;
import dev.conch.spring.leaderonly.Misfire;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * The misfire policies of {@code @Scheduled @LeaderOnly} jobs on the in-memory offices, where a
 * test holds an office vacant over firings: SKIP runs none of them and counts them, RUN_ONCE runs
 * the latest (cron: a whole cron time) unless it is older than the threshold, a run whose term
 * ended is reported as interrupted and not run again; and the policies startup refuses.
 */
@Timeout(60)
class MisfirePolicyTest {

  private static final Duration WAIT = Duration.ofSeconds(20);

  private static final String OFFICE = "app";

  private final LocalOffices offices = new LocalOffices();

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  MetricsAutoConfiguration.class,
                  ConchAutoConfiguration.class,
                  LeaderOnlyAutoConfiguration.class))
          .withPropertyValues("conch.standalone=true", "spring.application.name=" + OFFICE)
          .withBean(LocalOffices.class, () -> this.offices)
          .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
          .withBean(
              RecordingJobRecords.class,
              () ->
                  new RecordingJobRecords(
                      new InMemoryJobRecords(
                          office -> this.offices.leader(office).map(Holder::rev).orElse(0L))));

  @Test
  void skipPolicyRunsNoMissedFiringAndCountsThem() {
    this.contextRunner
        .withUserConfiguration(Scheduling.class)
        .withBean(SkipJob.class)
        .run(
            context -> {
              SkipJob job = context.getBean(SkipJob.class);
              leads(context);
              await().atMost(WAIT).until(() -> job.runs() >= 1);
              holdVacantOver(context, 5);
              reopen(context);
              // Counted before anything would run: once counted, the recovery is over.
              await().atMost(WAIT).until(() -> count(context, "misfire_skipped") >= 1);
              assertThat(count(context, "misfire_skipped")).isGreaterThanOrEqualTo(4);
              assertThat(count(context, "misfire_recovered")).isZero();
            });
  }

  @Test
  void runOncePolicyRunsTheLatestMissedCronTimeOnce() {
    this.contextRunner
        .withUserConfiguration(Scheduling.class)
        .withBean(CronJob.class)
        .run(
            context -> {
              CronJob job = context.getBean(CronJob.class);
              leads(context);
              await().atMost(WAIT).until(() -> job.runs() >= 1);
              holdVacantOver(context, 2);
              reopen(context);
              await().atMost(WAIT).until(() -> count(context, "misfire_recovered") == 1);
              RecordingJobRecords records = context.getBean(RecordingJobRecords.class);
              long token = context.getBean(Election.class).token().orElseThrow();
              JobRecord recovered =
                  records.claims().stream().filter(c -> c.token() == token).findFirst().get();
              assertThat(recovered.scheduled().getNano()).isZero();
              assertThat(recovered.scheduled()).isBefore(recovered.started());
            });
  }

  @Test
  void missedFiringOlderThanTheThresholdIsSkipped() {
    this.contextRunner
        .withUserConfiguration(Scheduling.class)
        .withBean(DelayJob.class)
        .withPropertyValues("jobs.threshold=300ms")
        .run(
            context -> {
              DelayJob job = context.getBean(DelayJob.class);
              leads(context);
              await().atMost(WAIT).until(() -> job.runs() >= 1);
              // Vacant for at least a second: the one due 100 ms after the last run is too old.
              holdVacantOver(context, 10);
              reopen(context);
              await().atMost(WAIT).until(() -> count(context, "misfire_skipped") == 1);
              assertThat(count(context, "misfire_recovered")).isZero();
            });
  }

  @Test
  void missedFiringWithinTheThresholdIsRun() {
    this.contextRunner
        .withUserConfiguration(Scheduling.class)
        .withBean(DelayJob.class)
        .withPropertyValues("jobs.threshold=1h")
        .run(
            context -> {
              DelayJob job = context.getBean(DelayJob.class);
              leads(context);
              await().atMost(WAIT).until(() -> job.runs() >= 1);
              holdVacantOver(context, 10);
              reopen(context);
              await().atMost(WAIT).until(() -> count(context, "misfire_recovered") == 1);
              assertThat(count(context, "misfire_skipped")).isZero();
            });
  }

  @Test
  void runWhoseHolderLostItsKeyIsInterruptedAndReportedUnknownByTheNextTerm() {
    this.contextRunner
        .withUserConfiguration(Scheduling.class)
        .withBean(SlowJob.class)
        .run(
            context -> {
              SlowJob job = context.getBean(SlowJob.class);
              leads(context);
              assertThat(job.started().await(10, TimeUnit.SECONDS)).isTrue();
              this.offices.holdVacant(OFFICE);
              this.offices.revoke(OFFICE);
              await().atMost(WAIT).until(() -> !context.getBean(Election.class).isLeader());
              RecordingJobRecords records = context.getBean(RecordingJobRecords.class);
              // The lease is gone, a successor may lead: the stop interrupts the run at once, and
              // its own end (interrupted) comes after its key's: refused.
              await()
                  .atMost(WAIT)
                  .until(
                      () ->
                          records.refused().stream()
                              .anyMatch(r -> r.outcome() == JobRecord.Outcome.INTERRUPTED));
              reopen(context);
              await().atMost(WAIT).until(() -> count(context, "unknown") == 1);
              assertThat(records.writes)
                  .anyMatch(w -> w.taken() && w.record().outcome() == JobRecord.Outcome.UNKNOWN);
              // Not run again as a missed firing (the scheduler's next firings are the new term's).
              assertThat(count(context, "misfire_recovered")).isZero();
              job.release().countDown();
            });
  }

  @Test
  void endpointOverviewShowsTheLastRunOfEachJobOfTheOffice() {
    this.contextRunner
        .withConfiguration(AutoConfigurations.of(ConchEndpointAutoConfiguration.class))
        .withPropertyValues("management.endpoints.web.exposure.include=conch")
        .withUserConfiguration(Scheduling.class)
        .withBean(DelayJob.class)
        .run(
            context -> {
              leads(context);
              long token = context.getBean(Election.class).token().orElseThrow();
              ConchEndpoint endpoint = context.getBean(ConchEndpoint.class);
              await()
                  .atMost(WAIT)
                  .until(
                      () ->
                          endpoint.conch().offices().get(0).jobs().stream()
                              .anyMatch(j -> j.token() == token && j.outcome().equals("done")));
              ConchEndpoint.JobDescriptor job = endpoint.conch().offices().get(0).jobs().get(0);
              assertThat(job.job())
                  .isEqualTo(DelayJob.class.getName().replace('$', '.') + ".run()");
              assertThat(job.holder()).isEqualTo(context.getBean(Election.class).candidate().id());
            });
  }

  @Test
  void misfireOnAMethodThatIsNotScheduledFailsStartup() {
    FailureAnalysis analysis =
        ConchTestSupport.analyze(
            this.contextRunner.withBean(UnscheduledJob.class), new InvalidMethodFailureAnalyzer());
    assertThat(analysis.getDescription())
        .contains(
            "@LeaderOnly method UnscheduledJob.run()", "misfire = RUN_ONCE", "is not @Scheduled");
    assertThat(analysis.getAction()).contains("exactly one @Scheduled", "misfire = SKIP");
  }

  @Test
  void negativeThresholdFailsStartup() {
    FailureAnalysis analysis =
        ConchTestSupport.analyze(
            this.contextRunner
                .withUserConfiguration(Scheduling.class)
                .withBean(DelayJob.class)
                .withPropertyValues("jobs.threshold=-5s"),
            new InvalidMethodFailureAnalyzer());
    assertThat(analysis.getDescription())
        .contains("@LeaderOnly method DelayJob.run()", "misfireThreshold = '-5s'", "negative");
    assertThat(analysis.getAction()).contains("zero or more", "10m");
  }

  private void leads(AssertableApplicationContext context) throws InterruptedException {
    assertThat(context).hasNotFailed();
    assertThat(context.getBean(Election.class).awaitLeadership(WAIT)).isTrue();
  }

  /** Ends the term and keeps the office vacant until at least {@code firings} were skipped. */
  private void holdVacantOver(AssertableApplicationContext context, int firings) {
    Election election = context.getBean(Election.class);
    this.offices.holdVacant(OFFICE);
    this.offices.revoke(OFFICE);
    await().atMost(WAIT).until(() -> !election.isLeader());
    double skipped = count(context, "skipped");
    await().atMost(WAIT).until(() -> count(context, "skipped") >= skipped + firings);
  }

  private void reopen(AssertableApplicationContext context) throws InterruptedException {
    Election election = context.getBean(Election.class);
    String id = election.candidate().id();
    await().atMost(WAIT).until(() -> election.isLeader() || this.offices.grant(OFFICE, id));
    assertThat(election.awaitLeadership(WAIT)).isTrue();
  }

  /** How many firings of office {@code app} had {@code outcome}. */
  static double count(AssertableApplicationContext context, String outcome) {
    Counter counter =
        context
            .getBean(MeterRegistry.class)
            .find("conch.leaderonly.firings")
            .tags("conch.office", OFFICE, "conch.outcome", outcome)
            .counter();
    return (counter != null) ? counter.count() : 0;
  }

  static class SkipJob extends CountingJob {

    @Scheduled(fixedRate = 100)
    @LeaderOnly(misfire = Misfire.SKIP)
    void run() {
      this.runs.incrementAndGet();
    }
  }

  static class CronJob extends CountingJob {

    @Scheduled(cron = "* * * * * *")
    @LeaderOnly(misfire = Misfire.RUN_ONCE)
    void run() {
      this.runs.incrementAndGet();
    }
  }

  static class DelayJob extends CountingJob {

    @Scheduled(fixedDelay = 100)
    @LeaderOnly(misfire = Misfire.RUN_ONCE, misfireThreshold = "${jobs.threshold:1h}")
    void run() {
      this.runs.incrementAndGet();
    }
  }

  static class SlowJob extends CountingJob {

    final CountDownLatch started = new CountDownLatch(1);

    final CountDownLatch release = new CountDownLatch(1);

    CountDownLatch started() {
      return this.started;
    }

    CountDownLatch release() {
      return this.release;
    }

    @Scheduled(fixedRate = 100)
    @LeaderOnly(misfire = Misfire.SKIP)
    void run() throws InterruptedException {
      this.runs.incrementAndGet();
      this.started.countDown();
      this.release.await(30, TimeUnit.SECONDS);
    }
  }

  /** Counts its runs; read them through {@link #runs()}: the proxy's own fields are empty. */
  abstract static class CountingJob {

    final AtomicInteger runs = new AtomicInteger();

    int runs() {
      return this.runs.get();
    }
  }

  /** What runs the jobs' {@code @Scheduled} methods. */
  @Configuration(proxyBeanMethods = false)
  @EnableScheduling
  static class Scheduling {}

  static class UnscheduledJob {

    @LeaderOnly(misfire = Misfire.RUN_ONCE)
    public void run() {}
  }
}
