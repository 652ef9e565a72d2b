package dev.conch.spring.leaderonly;

import dev.conch.Leadership;
import java.time.Clock;
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
