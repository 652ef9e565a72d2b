package dev.conch.spring;

import dev.conch.Leadership;
import java.time.Clock;
import java.util.OptionalLong;
import java.util.function.Supplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A firing of a {@code @Scheduled @LeaderOnly} job claimed in its record: runs the call and records
 * how it ended, fenced by the term's token like the claim. An end that comes after the term's is
 * refused; the next leader then reports the firing interrupted.
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

  /** Makes the call; then records {@code done} or {@code failed}. */
  @Nullable Object run(LeaderOnlyInvocations.Call call) throws Throwable {
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
      claimed.finish(outcome);
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
                  + " interrupted");
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
