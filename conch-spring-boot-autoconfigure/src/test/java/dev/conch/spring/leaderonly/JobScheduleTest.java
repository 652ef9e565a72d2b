package dev.conch.spring.leaderonly;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Objects;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.scheduling.config.CronTask;
import org.springframework.scheduling.config.FixedDelayTask;
import org.springframework.scheduling.config.FixedRateTask;
import org.springframework.scheduling.config.Task;
import org.springframework.scheduling.support.CronTrigger;

/**
 * Which firings a new leader finds missed, per kind of schedule, at fixed instants; the schedules
 * are read from tasks such as Spring's {@code @Scheduled} post-processor makes.
 */
@Timeout(10)
class JobScheduleTest {

  private static final ZoneId UTC = ZoneId.of("UTC");

  private static final Runnable JOB = () -> {};

  @Test
  void nightlyCronWhoseLeaderDiedJustBeforeTwoMissesThatFiringOnly() {
    JobSchedule nightly = cron("0 0 2 * * *", UTC);
    JobRecord last = done("2026-12-01T02:00:00Z", "2026-12-01T02:00:00.010Z");
    JobSchedule.Missed missed = nightly.missed(last, Instant.parse("2026-12-02T02:00:05Z"));
    assertThat(missed).isEqualTo(new JobSchedule.Missed(Instant.parse("2026-12-02T02:00:00Z"), 1));
    assertThat(nightly.missed(last, Instant.parse("2026-12-02T01:59:58Z"))).isNull();
  }

  @Test
  void cronCountsEveryMissedTimeAndNamesTheLatest() {
    JobSchedule everyMinute = cron("0 * * * * *", UTC);
    JobRecord last = done("2026-12-01T10:00:00Z", "2026-12-01T10:00:01Z");
    assertThat(everyMinute.missed(last, Instant.parse("2026-12-01T10:05:30Z")))
        .isEqualTo(new JobSchedule.Missed(Instant.parse("2026-12-01T10:05:00Z"), 5));
  }

  @Test
  void cronRunIsTheCronTimeItWasDueAtEvenWhenStartedAlittleEarlyOrLate() {
    JobSchedule nightly = cron("0 0 2 * * *", UTC);
    Instant two = Instant.parse("2026-12-02T02:00:00Z");
    assertThat(nightly.firingAt(Instant.parse("2026-12-02T02:00:00.300Z"))).isEqualTo(two);
    assertThat(nightly.firingAt(Instant.parse("2026-12-02T01:59:59.980Z"))).isEqualTo(two);
  }

  @Test
  void fixedRateCarriesTheRecordedCadenceOn() {
    JobSchedule rate = of(new FixedRateTask(JOB, Duration.ofMinutes(1), Duration.ZERO));
    JobRecord last = done("2026-12-01T10:00:00Z", "2026-12-01T10:00:02Z");
    assertThat(rate.missed(last, Instant.parse("2026-12-01T10:03:30Z")))
        .isEqualTo(new JobSchedule.Missed(Instant.parse("2026-12-01T10:03:00Z"), 3));
    assertThat(rate.missed(last, Instant.parse("2026-12-01T10:00:59Z"))).isNull();
  }

  @Test
  void fixedDelayIsDueDelayAfterTheRecordedRunEnded() {
    JobSchedule delay = of(new FixedDelayTask(JOB, Duration.ofMinutes(5), Duration.ZERO));
    JobRecord last = done("2026-12-01T10:00:00Z", "2026-12-01T10:01:00Z");
    assertThat(delay.missed(last, Instant.parse("2026-12-01T10:05:59Z"))).isNull();
    assertThat(delay.missed(last, Instant.parse("2026-12-01T10:07:00Z")))
        .isEqualTo(new JobSchedule.Missed(Instant.parse("2026-12-01T10:06:00Z"), 1));
  }

  @Test
  void fixedDelayAfterAnInterruptedRunCountsFromItsStart() {
    JobSchedule delay = of(new FixedDelayTask(JOB, Duration.ofMinutes(5), Duration.ZERO));
    JobRecord running =
        new JobRecord(
            "o",
            "Job.run()",
            7,
            "a",
            Instant.parse("2026-12-01T10:00:00Z"),
            Instant.parse("2026-12-01T10:00:00Z"),
            null,
            JobRecord.Outcome.RUNNING);
    assertThat(delay.missed(running, Instant.parse("2026-12-01T10:06:00Z")))
        .isEqualTo(new JobSchedule.Missed(Instant.parse("2026-12-01T10:05:00Z"), 1));
  }

  @Test
  void fixedDelayAfterARunMarkedUnknownCountsFromItsStartNotFromTheMarking() {
    JobSchedule delay = of(new FixedDelayTask(JOB, Duration.ofMinutes(5), Duration.ZERO));
    Instant marked = Instant.parse("2026-12-01T10:06:00Z");
    JobRecord unknown =
        new JobRecord(
                "o",
                "Job.run()",
                7,
                "a",
                Instant.parse("2026-12-01T10:00:00Z"),
                Instant.parse("2026-12-01T10:00:00Z"),
                null,
                JobRecord.Outcome.RUNNING)
            .ended(marked, JobRecord.Outcome.UNKNOWN);
    // The next leader marks the run unknown, then looks for missed firings at the same moment.
    assertThat(delay.missed(unknown, marked))
        .isEqualTo(new JobSchedule.Missed(Instant.parse("2026-12-01T10:05:00Z"), 1));
  }

  @Test
  void recordSurvivesItsJson() {
    JobRecord record = done("2026-12-01T10:00:00Z", "2026-12-01T10:01:00Z");
    assertThat(JobRecord.parse(record.toJson())).contains(record);
    assertThat(JobRecord.parse("not json")).isEmpty();
  }

  @Test
  void cronInTheZoneItsTaskNamesMissesItsTimesThere() {
    JobSchedule tokyo = cron("0 0 2 * * *", ZoneId.of("Asia/Tokyo"));
    JobRecord last = done("2026-11-30T17:00:00Z", "2026-11-30T17:00:01Z");
    // 02:00 in Tokyo is 17:00 UTC the day before.
    assertThat(tokyo.missed(last, Instant.parse("2026-12-01T17:00:05Z")))
        .isEqualTo(new JobSchedule.Missed(Instant.parse("2026-12-01T17:00:00Z"), 1));
    assertThat(tokyo.missed(last, Instant.parse("2026-12-01T16:59:59Z"))).isNull();
  }

  @Test
  void cronWithoutAZoneFiresInTheZoneOfTheSchedulersClock() {
    Task task = new CronTask(JOB, new CronTrigger("0 0 2 * * *"));
    Clock paris = Clock.system(ZoneId.of("Europe/Paris"));
    JobSchedule nightly = Objects.requireNonNull(JobSchedule.of(task, paris));
    // 02:00 in Paris in winter is 01:00 UTC.
    assertThat(nightly.firingAt(Instant.parse("2026-12-02T01:00:00.100Z")))
        .isEqualTo(Instant.parse("2026-12-02T01:00:00Z"));
  }

  @Test
  void taskOfAnotherKindIsNoSchedule() {
    assertThat(JobSchedule.of(new Task(JOB), Clock.systemUTC())).isNull();
  }

  private static JobSchedule cron(String expression, ZoneId zone) {
    return of(new CronTask(JOB, new CronTrigger(expression, zone)));
  }

  private static JobSchedule of(Task task) {
    return Objects.requireNonNull(JobSchedule.of(task, Clock.systemUTC()));
  }

  private static JobRecord done(String scheduled, String ended) {
    return new JobRecord(
        "o",
        "Job.run()",
        7,
        "a",
        Instant.parse(scheduled),
        Instant.parse(scheduled),
        Instant.parse(ended),
        JobRecord.Outcome.DONE);
  }
}
