package dev.conch.spring.leaderonly;

import dev.conch.Leadership;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * What a new leader does with the record of each of its office's jobs, once its acquire hooks ran:
 * a firing claimed by an earlier term that never said how it ended is marked {@link
 * JobRecord.Outcome#UNKNOWN} (and not run again: it may have done its work); then the firings that
 * came after the last recorded one are missed, and the job's {@link Misfire} policy decides: {@code
 * RUN_ONCE} claims the latest and runs it now when it is no older than the threshold; everything
 * else is skipped, counted and logged.
 */
final class MisfireRecovery {

  private static final Log logger = LogFactory.getLog(MisfireRecovery.class);

  private final JobRecords records;

  private final Clock clock;

  private final JobMeters meters;

  private final LeaderOnlyJobs jobs;

  MisfireRecovery(JobRecords records, Clock clock, JobMeters meters, LeaderOnlyJobs jobs) {
    this.records = records;
    this.clock = clock;
    this.meters = meters;
    this.jobs = jobs;
  }

  /** Recovers {@code job} for {@code term}; failures are logged, never thrown. */
  void recover(Leadership term, LeaderOnlyJob job) {
    try {
      recoverOrThrow(term, job);
    } catch (RuntimeException ex) {
      logger.warn(
          "Missed firings of "
              + job.tag()
              + " in office '"
              + term.office()
              + "' could not be looked for: "
              + ex.getMessage());
    }
  }

  private void recoverOrThrow(Leadership term, LeaderOnlyJob job) {
    JobRecords.Versioned last = this.records.read(term.office(), job.name()).orElse(null);
    if (last == null) {
      // Never ran anywhere: no firing was missed, the schedule starts here.
      debug(term, job, "it has no record yet, so no firing was missed");
      return;
    }
    job.seen(term.token(), last);
    JobRecord record = last.record();
    if (record.token() == term.token()) {
      debug(term, job, "this term already claimed a firing");
      return;
    }
    long revision = last.revision();
    Instant now = this.clock.instant();
    if (!record.finished()) {
      JobRecord unknown = record.ended(now, JobRecord.Outcome.UNKNOWN);
      OptionalLong written = this.records.write(term, unknown, revision);
      if (written.isEmpty()) {
        debug(term, job, "its record moved or the term ended before it was marked unknown");
        return;
      }
      revision = written.getAsLong();
      record = unknown;
      job.seen(term.token(), new JobRecords.Versioned(record, revision));
      this.meters.count(term.office(), job.tag(), JobMeters.UNKNOWN, 1);
      logger.warn(
          job.tag()
              + " (firing "
              + record.scheduled()
              + ", started "
              + record.started()
              + " in term "
              + record.token()
              + " of office '"
              + term.office()
              + "') never said how it ended (its holder stopped or lost its key first): reported as unknown, not"
              + " run again");
    }
    JobSchedule.Missed missed = job.schedule().missed(record, now);
    if (missed == null) {
      debug(term, job, "no firing came after " + record.scheduled() + " (" + job.schedule() + ")");
      return;
    }
    Duration age = Duration.between(missed.latest(), now);
    boolean run = job.misfire() == Misfire.RUN_ONCE && age.compareTo(job.threshold()) <= 0;
    long skipped = run ? missed.count() - 1 : missed.count();
    if (skipped > 0) {
      this.meters.count(term.office(), job.tag(), JobMeters.MISFIRE_SKIPPED, skipped);
    }
    String what =
        missed.count()
            + " firing(s) of "
            + job.tag()
            + " ("
            + job.schedule()
            + ") came while office '"
            + term.office()
            + "' was vacant or held by a term that did not run them, the latest at "
            + missed.latest();
    if (!run) {
      String why =
          (job.misfire() == Misfire.SKIP)
              ? "misfire = SKIP"
              : "older (" + age + ") than misfireThreshold " + job.threshold();
      logger.info(what + ": skipped (" + why + ")");
      return;
    }
    JobRecord claim = job.claim(term, missed.latest(), now);
    OptionalLong written = this.records.write(term, claim, revision);
    if (written.isEmpty()) {
      // The term ended, or a firing of this term was claimed meanwhile: it ran instead.
      logger.info(what + ": not run, its record moved or the term ended before it was claimed");
      return;
    }
    JobRecords.Versioned claimed = new JobRecords.Versioned(claim, written.getAsLong());
    job.seen(term.token(), claimed);
    this.meters.count(term.office(), job.tag(), JobMeters.MISFIRE_RECOVERED, 1);
    logger.info(what + ": running the latest once now (misfire = RUN_ONCE)");
    this.jobs.runMissed(job, term, claimed);
  }

  private static void debug(Leadership term, LeaderOnlyJob job, String why) {
    if (logger.isDebugEnabled()) {
      logger.debug(
          "No missed firing of "
              + job.tag()
              + " to run in term "
              + term.token()
              + " of office '"
              + term.office()
              + "': "
              + why);
    }
  }
}
