package dev.conch.spring.boot.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.conch.Holder;
import dev.conch.Leadership;
import dev.conch.local.LocalOffices;
import dev.conch.spring.leaderonly.InMemoryJobRecords;
import dev.conch.spring.leaderonly.JobRecord;
import dev.conch.spring.leaderonly.JobRecords;
import dev.conch.spring.leaderonly.LeaderOnly;
import dev.conch.spring.leaderonly.Misfire;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * {@link TestOffices#awaitRuns} counts a run once it has ended: its method returned and conch
 * recorded how it ended, so that a test finds both what the run did and its finished record.
 */
@SpringBootTest(
    properties = {"spring.application.name=reports", "conch.candidate.id=me"},
    webEnvironment = SpringBootTest.WebEnvironment.NONE)
@AutoConfigureTestOffices
@Timeout(60)
class TestOfficesAwaitRunsTest {

  @Autowired TestOffices offices;

  @Autowired Report report;

  @Autowired Gates gates;

  @Autowired HeldRecords records;

  @Test
  void aRunThatHasStartedIsNotCountedUntilItsMethodReturns() throws Exception {
    CompletableFuture<Void> call = CompletableFuture.runAsync(this.report::nightly);
    assertThat(this.gates.started.await(10, TimeUnit.SECONDS)).isTrue();

    try {
      assertThat(this.offices.runs(Report.class, "nightly")).isZero();
    } finally {
      this.gates.proceed.countDown();
    }
    this.offices.awaitRuns(Report.class, "nightly", 1);
    assertThat(this.gates.done).hasValue(1);
    call.get(10, TimeUnit.SECONDS);
  }

  @Test
  void aRunIsNotCountedUntilHowItEndedIsRecorded() throws Exception {
    this.records.hold();
    CompletableFuture<Void> call = CompletableFuture.runAsync(this.report::hourly);
    // The method returned; conch writes the run's end in its record, held here.
    assertThat(this.records.finishing.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(this.gates.hourly).hasValue(1);

    try {
      assertThat(this.offices.runs(Report.class, "hourly")).isZero();
      assertThat(this.offices.officeRuns("reports")).isZero();
    } finally {
      this.records.release.countDown();
    }
    this.offices.awaitRuns(Report.class, "hourly", 1);
    Leadership term = this.offices.awaitLeading("reports");
    assertThat(this.offices.lastRun(Report.class, "hourly"))
        .hasValueSatisfying(
            run -> {
              assertThat(run.outcome()).isEqualTo(JobRecord.Outcome.DONE);
              assertThat(run.token()).isEqualTo(term.token());
            });
    call.get(10, TimeUnit.SECONDS);
  }

  @Test
  void aRunThatThrowsIsCountedWithItsFailureRecorded() {
    assertThatIllegalStateException().isThrownBy(this.report::failing);

    this.offices.awaitRuns(Report.class, "failing", 1);
    assertThat(this.offices.lastRun(Report.class, "failing"))
        .hasValueSatisfying(run -> assertThat(run.outcome()).isEqualTo(JobRecord.Outcome.FAILED));
  }

  @SpringBootConfiguration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  @EnableScheduling
  static class App {

    @Bean
    Gates gates() {
      return new Gates();
    }

    @Bean
    Report report(Gates gates) {
      return new Report(gates);
    }

    @Bean
    HeldRecords jobRecords(LocalOffices offices) {
      return new HeldRecords(
          new InMemoryJobRecords(office -> offices.leader(office).map(Holder::rev).orElse(0L)));
    }
  }

  /** Where the test holds the job and sees what it did: the job's own fields are its proxy's. */
  static final class Gates {

    final CountDownLatch started = new CountDownLatch(1);

    final CountDownLatch proceed = new CountDownLatch(1);

    final AtomicInteger done = new AtomicInteger();

    final AtomicInteger hourly = new AtomicInteger();
  }

  /**
   * Jobs Spring schedules (so that their runs are recorded) a day after start: the test calls them.
   */
  static class Report {

    private final Gates gates;

    Report(Gates gates) {
      this.gates = gates;
    }

    /** Starts, then holds until the test lets it end. */
    @Scheduled(fixedDelay = 1, initialDelay = 1, timeUnit = TimeUnit.DAYS)
    @LeaderOnly(misfire = Misfire.SKIP)
    void nightly() {
      this.gates.started.countDown();
      try {
        assertThat(this.gates.proceed.await(30, TimeUnit.SECONDS)).isTrue();
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
      }
      this.gates.done.incrementAndGet();
    }

    @Scheduled(fixedDelay = 1, initialDelay = 1, timeUnit = TimeUnit.DAYS)
    @LeaderOnly(misfire = Misfire.SKIP)
    void hourly() {
      this.gates.hourly.incrementAndGet();
    }

    @Scheduled(fixedDelay = 1, initialDelay = 1, timeUnit = TimeUnit.DAYS)
    @LeaderOnly(misfire = Misfire.SKIP)
    void failing() {
      throw new IllegalStateException("the report's source is gone");
    }
  }

  /** Job records in memory whose write of a run's end can be held until the test releases it. */
  static final class HeldRecords implements JobRecords {

    final CountDownLatch finishing = new CountDownLatch(1);

    final CountDownLatch release = new CountDownLatch(1);

    private final JobRecords records;

    private volatile boolean held;

    HeldRecords(JobRecords records) {
      this.records = records;
    }

    void hold() {
      this.held = true;
    }

    @Override
    public Optional<Versioned> read(String office, String job) {
      return this.records.read(office, job);
    }

    @Override
    public OptionalLong write(Leadership term, JobRecord record, long revision) {
      if (this.held && record.finished()) {
        this.finishing.countDown();
        try {
          assertThat(this.release.await(30, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException ex) {
          Thread.currentThread().interrupt();
        }
      }
      return this.records.write(term, record, revision);
    }
  }
}
