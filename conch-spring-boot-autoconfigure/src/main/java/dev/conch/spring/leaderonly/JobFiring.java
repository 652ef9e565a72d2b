package dev.conch.spring.leaderonly;

import dev.conch.Leadership;
import java.time.Clock;
import java.time.Instant;
import java.util.OptionalLong;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A firing of a {@code @Scheduled @LeaderOnly} job claimed in its record: runs the call and records
 * how it ended, fenced by the term's token like the claim: {@code DONE} when it returned (also
 * after its term began to stop: the stop waits for it before the key goes), {@code INTERRUPTED}
 * when it threw after the stop interrupted it at its bound, {@code FAILED} when it threw otherwise.
 * An end that comes after the term's key is gone is refused; the next leader then reports the
 * firing's end {@code UNKNOWN}.
 */
final class JobFiring {

  private static final Log logger = LogFactory.getLog(JobFiring.class);

  /** The call of a method that is no job: nothing is recorded. */
  static final JobFiring UNRECORDED = new JobFiring();

  private final @Nullable Parts parts;

  JobFiring(
      Supplier<JobRecords> records,
      Supplier<Clock> clock,
      LeaderOnlyJob job,
      Leadership term,
      JobRecords.Versioned claim) {
    this.parts = new Parts(records, clock, job, term, claim);
  }

  private JobFiring() {
    this.parts = null;
  }

  /**
   * Claims {@code firing} of {@code job} for {@code term}, a run that starts at {@code now}, in the
   * job's record: null when it must not run (another term claimed that cron time, or the term ended
   * in the store).
   */
  static @Nullable JobFiring claim(
      Supplier<JobRecords> records,
      Supplier<Clock> clock,
      LeaderOnlyJob job,
      Leadership term,
      Instant firing,
      Instant now) {
    JobRecords store = records.get();
    JobRecords.Versioned last = job.seen(term.token());
    if (last == null) {
      last = store.read(term.office(), job.name()).orElse(null);
    }
    for (int attempt = 0; attempt < 3; attempt++) {
      // A cron time is one firing wherever it runs: one another term claimed (its clock ahead of
      // ours) is not run again. Fixed-rate and fixed-delay runs are each their own moment.
      if (last != null
          && job.schedule().kind() == JobSchedule.Kind.CRON
          && last.record().token() != term.token()
          && !last.record().scheduled().isBefore(firing)) {
        notRunning(job, firing, last.record().token(), term.office(), "claimed it");
        return null;
      }
      JobRecord claim = job.claim(term, firing, now);
      long revision = (last != null) ? last.revision() : 0;
      OptionalLong written = store.write(term, claim, revision);
      if (written.isPresent()) {
        JobRecords.Versioned claimed = new JobRecords.Versioned(claim, written.getAsLong());
        job.seen(term.token(), claimed);
        return new JobFiring(records, clock, job, term, claimed);
      }
      JobRecords.Versioned fresh = store.read(term.office(), job.name()).orElse(null);
      long seen = (fresh != null) ? fresh.revision() : 0;
      if (seen == revision) {
        // The record did not move: the fence refused the token, this term ended in the store.
        notRunning(job, firing, term.token(), term.office(), "no longer holds it in the store");
        job.seen(term.token(), null);
        return null;
      }
      last = fresh;
    }
    return null;
  }

  private static void notRunning(
      LeaderOnlyJob job, Instant firing, long token, String office, String why) {
    logger.info(
        "Not running "
            + job.tag()
            + " (firing "
            + firing
            + "): term "
            + token
            + " of office '"
            + office
            + "' "
            + why);
  }

  /** Whether this is a firing of {@code job}. */
  boolean isOf(LeaderOnlyJob job) {
    return this.parts != null && this.parts.job() == job;
  }

  /** Whether it was claimed in {@code term}. */
  boolean isIn(Leadership term) {
    return this.parts != null && this.parts.term().token() == term.token();
  }

  /**
   * Makes the call; then records how it ended.
   *
   * @param interrupted whether the term's stop interrupted the call
   */
  @Nullable Object run(LeaderOnlyInvocations.Call call, BooleanSupplier interrupted)
      throws Throwable {
    Parts claimed = this.parts;
    if (claimed == null) {
      return call.proceed();
    }
    JobRecord.Outcome outcome = JobRecord.Outcome.FAILED;
    try {
      Object result = call.proceed();
      outcome = JobRecord.Outcome.DONE;
      return result;
    } finally {
      if (outcome != JobRecord.Outcome.DONE && interrupted.getAsBoolean()) {
        outcome = JobRecord.Outcome.INTERRUPTED;
      }
      // The stop's interrupt must not fail the record's write: the key is still there.
      boolean flag = Thread.interrupted();
      try {
        claimed.finish(outcome);
      } finally {
        if (flag) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  private record Parts(
      Supplier<JobRecords> records,
      Supplier<Clock> clock,
      LeaderOnlyJob job,
      Leadership term,
      JobRecords.Versioned claim) {

    void finish(JobRecord.Outcome outcome) {
      JobRecord ended = this.claim.record().ended(this.clock.get().instant(), outcome);
      try {
        OptionalLong written = this.records.get().write(this.term, ended, this.claim.revision());
        if (written.isPresent()) {
          this.job.seen(this.term.token(), new JobRecords.Versioned(ended, written.getAsLong()));
          return;
        }
        this.job.seen(this.term.token(), null);
        if (!this.term.isValid()) {
          logger.warn(
              this.job.tag()
                  + " (firing "
                  + this.claim.record().scheduled()
                  + ") ended after term "
                  + this.term.token()
                  + " of office '"
                  + this.term.office()
                  + "' did: how it ended was not recorded; the next leader reports it"
                  + " unknown");
        }
      } catch (RuntimeException ex) {
        logger.warn(
            "How "
                + this.job.tag()
                + " (firing "
                + this.claim.record().scheduled()
                + ") ended could not be recorded: "
                + ex.getMessage());
      }
    }
  }
}
