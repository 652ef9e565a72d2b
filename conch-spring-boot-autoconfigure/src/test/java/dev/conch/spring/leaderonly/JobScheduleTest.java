package dev.conch.spring.leaderonly;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Which firings a new leader finds missed, per kind of schedule, at fixed instants. */
@Timeout(10)
class JobScheduleTest {

  private static final ZoneId UTC = ZoneId.of("UTC");

  @Test
  void nightlyCronWhoseLeaderDiedJustBeforeTwoMissesThatFiringOnly() {
    JobSchedule nightly = JobSchedule.cron("0 0 2 * * *", UTC);
    JobRecord last = done("2026-12-01T02:00:00Z", "2026-12-01T02:00:00.010Z");
    JobSchedule.Missed missed = nightly.missed(last, Instant.parse("2026-12-02T02:00:05Z"));
    assertThat(missed).isEqualTo(new JobSchedule.Missed(Instant.parse("2026-12-02T02:00:00Z"), 1));
    assertThat(nightly.missed(last, Instant.parse("2026-12-02T01:59:58Z"))).isNull();
  }

  @Test
  void cronCountsEveryMissedTimeAndNamesTheLatest() {
    JobSchedule everyMinute = JobSchedule.cron("0 * * * * *", UTC);
    JobRecord last = done("2026-12-01T10:00:00Z", "2026-12-01T10:00:01Z");
    assertThat(everyMinute.missed(last, Instant.parse("2026-12-01T10:05:30Z")))
        .isEqualTo(new JobSchedule.Missed(Instant.parse("2026-12-01T10:05:00Z"), 5));
  }

  @Test
  void cronRunIsTheCronTimeItWasDueAtEvenWhenStartedAlittleEarlyOrLate() {
    JobSchedule nightly = JobSchedule.cron("0 0 2 * * *", UTC);
    Instant two = Instant.parse("2026-12-02T02:00:00Z");
    assertThat(nightly.firingAt(Instant.parse("2026-12-02T02:00:00.300Z"))).isEqualTo(two);
    assertThat(nightly.firingAt(Instant.parse("2026-12-02T01:59:59.980Z"))).isEqualTo(two);
  }

  @Test
  void fixedRateCarriesTheRecordedCadenceOn() {
    JobSchedule rate = JobSchedule.fixedRate(Duration.ofMinutes(1));
    JobRecord last = done("2026-12-01T10:00:00Z", "2026-12-01T10:00:02Z");
    assertThat(rate.missed(last, Instant.parse("2026-12-01T10:03:30Z")))
        .isEqualTo(new JobSchedule.Missed(Instant.parse("2026-12-01T10:03:00Z"), 3));
    assertThat(rate.missed(last, Instant.parse("2026-12-01T10:00:59Z"))).isNull();
  }

  @Test
  void fixedDelayIsDueDelayAfterTheRecordedRunEnded() {
    JobSchedule delay = JobSchedule.fixedDelay(Duration.ofMinutes(5));
    JobRecord last = done("2026-12-01T10:00:00Z", "2026-12-01T10:01:00Z");
    assertThat(delay.missed(last, Instant.parse("2026-12-01T10:05:59Z"))).isNull();
    assertThat(delay.missed(last, Instant.parse("2026-12-01T10:07:00Z")))
        .isEqualTo(new JobSchedule.Missed(Instant.parse("2026-12-01T10:06:00Z"), 1));
  }

  @Test
  void fixedDelayAfterAnInterruptedRunCountsFromItsStart() {
    JobSchedule delay = JobSchedule.fixedDelay(Duration.ofMinutes(5));
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
    JobSchedule delay = JobSchedule.fixedDelay(Duration.ofMinutes(5));
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
