package dev.conch.spring.leaderonly;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.scheduling.Trigger;
import org.springframework.scheduling.config.CronTask;
import org.springframework.scheduling.config.FixedDelayTask;
import org.springframework.scheduling.config.FixedRateTask;
import org.springframework.scheduling.config.IntervalTask;
import org.springframework.scheduling.config.Task;
import org.springframework.scheduling.support.SimpleTriggerContext;

/**
 * The schedule of a {@code @Scheduled} method as Spring holds it (its {@link CronTask}, {@link
 * FixedRateTask} or {@link FixedDelayTask}: placeholders, {@code timeUnit} and {@code zone} already
 * applied), and what a misfire is under it:
 *
 * <ul>
 *   <li>cron: each time the task's trigger names is one firing; a firing is missed when it came
 *       after the last recorded one and before the new leader looked;
 *   <li>fixed rate: the firings are the last recorded one plus whole periods; the latest of those
 *       before the new leader looked is the missed one (the schedule of the instance that ran it is
 *       carried on, not the new leader's own);
 *   <li>fixed delay: there are no fixed times, so one run is due {@code delay} after the last
 *       recorded run ended (or, if it never said, after it started, even once a later leader marked
 *       it unknown); it is missed when that moment passed before the new leader looked.
 * </ul>
 */
final class JobSchedule {

  /** How early Spring may start a cron run: a run this close before a cron time is that firing. */
  private static final Duration EARLY = Duration.ofMillis(50);

  /** At most this many missed firings are counted one by one; beyond, the count stops there. */
  static final long MAX_COUNTED = 1_000_000;

  enum Kind {
    CRON,
    FIXED_RATE,
    FIXED_DELAY
  }

  private final Kind kind;

  /** The cron task's own trigger: its next time after a given one is Spring's, in its zone. */
  private final @Nullable Trigger cron;

  private final String expression;

  /** The scheduler's clock: its zone is a cron trigger's when the trigger names none. */
  private final Clock clock;

  private final Duration period;

  private final Duration initialDelay;

  private JobSchedule(
      Kind kind,
      @Nullable Trigger cron,
      String expression,
      Clock clock,
      Duration period,
      Duration initialDelay) {
    this.kind = kind;
    this.cron = cron;
    this.expression = expression;
    this.clock = clock;
    this.period = period;
    this.initialDelay = initialDelay;
  }

  /**
   * The schedule of {@code task}, a task Spring holds; null when it is none of cron, fixed rate or
   * fixed delay (a one-time task, a trigger of the application's own).
   *
   * @param clock the clock of the scheduler that runs it: its zone is the one a cron trigger
   *     without a zone fires in
   */
  static @Nullable JobSchedule of(Task task, Clock clock) {
    if (task instanceof CronTask cronTask) {
      return new JobSchedule(
          Kind.CRON,
          cronTask.getTrigger(),
          cronTask.getExpression(),
          clock,
          Duration.ZERO,
          Duration.ZERO);
    }
    if (task instanceof IntervalTask interval) {
      Kind kind =
          (task instanceof FixedRateTask)
              ? Kind.FIXED_RATE
              : (task instanceof FixedDelayTask) ? Kind.FIXED_DELAY : null;
      if (kind != null) {
        return new JobSchedule(
            kind,
            null,
            "",
            clock,
            interval.getIntervalDuration(),
            interval.getInitialDelayDuration());
      }
    }
    return null;
  }

  Kind kind() {
    return this.kind;
  }

  /** The fixed rate's period or the fixed delay; zero for cron. */
  Duration period() {
    return this.period;
  }

  /** The delay before the first run after start-up (fixed rate, fixed delay). */
  Duration initialDelay() {
    return this.initialDelay;
  }

  /**
   * The firing a run that starts at {@code now} is: for cron, the latest cron time at or before
   * {@code now} (a run started a little early counts as the time it is due); else {@code now}.
   */
  Instant firingAt(Instant now) {
    if (this.kind != Kind.CRON) {
      return now;
    }
    Instant latest = previous(now.plus(EARLY));
    return (latest != null) ? latest : now;
  }

  /**
   * The firings that came after {@code last} (the last recorded firing) and up to {@code now}.
   *
   * @return the latest of them and how many there were, or null when none came
   */
  @Nullable Missed missed(JobRecord last, Instant now) {
    return switch (this.kind) {
      case CRON -> cronMissed(last.scheduled(), now);
      case FIXED_RATE -> rateMissed(last.scheduled(), now);
      case FIXED_DELAY -> {
        // A run that never said how it ended counts from its start: the end an unknown run's
        // record carries is when the next leader marked it, not when it stopped.
        Instant ended = last.ended();
        Instant from =
            (ended != null && last.outcome() != JobRecord.Outcome.UNKNOWN) ? ended : last.started();
        Instant due = from.plus(this.period);
        yield due.isAfter(now) ? null : new Missed(due, 1);
      }
    };
  }

  private @Nullable Missed cronMissed(Instant after, Instant now) {
    Instant first = next(after);
    if (first == null || first.isAfter(now)) {
      return null;
    }
    Instant latest = Objects.requireNonNull(previous(now));
    long count = 1;
    Instant at = first;
    while (count < MAX_COUNTED) {
      at = next(at);
      if (at == null || at.isAfter(latest)) {
        break;
      }
      count++;
    }
    return new Missed(latest, count);
  }

  private @Nullable Missed rateMissed(Instant after, Instant now) {
    long periods =
        (this.period.isZero() || now.isBefore(after))
            ? 0
            : Duration.between(after, now).toNanos() / this.period.toNanos();
    if (periods < 1) {
      return null;
    }
    return new Missed(after.plus(this.period.multipliedBy(periods)), periods);
  }

  /** The first cron time after {@code time}, as the task's trigger computes it. */
  private @Nullable Instant next(Instant time) {
    SimpleTriggerContext context = new SimpleTriggerContext(this.clock);
    // As if a run scheduled at, started at and ended at {@code time}: the trigger goes on from it.
    context.update(time, time, time);
    return Objects.requireNonNull(this.cron).nextExecution(context);
  }

  /** The latest cron time at or before {@code time}; null when there is none in ~100 years. */
  private @Nullable Instant previous(Instant time) {
    // Look back a little further each time, until a cron time falls between, then walk forward.
    for (Duration back = Duration.ofSeconds(1);
        back.compareTo(Duration.ofDays(36_600)) <= 0;
        back = back.multipliedBy(4)) {
      Instant candidate = next(time.minus(back));
      if (candidate != null && !candidate.isAfter(time)) {
        Instant next = next(candidate);
        while (next != null && !next.isAfter(time)) {
          candidate = next;
          next = next(candidate);
        }
        return candidate;
      }
    }
    return null;
  }

  /** The same schedule: two beans of one class share one job, so they must agree on it. */
  @Override
  public boolean equals(@Nullable Object other) {
    return this == other
        || (other instanceof JobSchedule that
            && this.kind == that.kind
            && Objects.equals(this.cron, that.cron)
            && this.period.equals(that.period)
            && this.initialDelay.equals(that.initialDelay));
  }

  @Override
  public int hashCode() {
    return Objects.hash(this.kind, this.cron, this.period, this.initialDelay);
  }

  @Override
  public String toString() {
    String delay = this.initialDelay.isZero() ? "" : ", initial delay " + this.initialDelay;
    return switch (this.kind) {
      case CRON -> "cron '" + this.expression + "'";
      case FIXED_RATE -> "fixed rate " + this.period + delay;
      case FIXED_DELAY -> "fixed delay " + this.period + delay;
    };
  }

  /**
   * The firings that nobody ran.
   *
   * @param latest the latest of them
   * @param count how many there were (at most {@link #MAX_COUNTED})
   */
  record Missed(Instant latest, long count) {}
}
