package dev.conch.spring;

import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.format.annotation.DurationFormat;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.support.CronExpression;
import org.springframework.util.StringUtils;

/**
 * The schedule of a {@code @Scheduled} method, read the way Spring reads it (placeholders, {@code
 * timeUnit}, {@link CronExpression} in the {@code zone}), and what a misfire is under it:
 *
 * <ul>
 *   <li>cron: each time the expression names is one firing; a firing is missed when it came after
 *       the last recorded one and before the new leader looked;
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

  private final @Nullable CronExpression cron;

  private final ZoneId zone;

  private final Duration period;

  private JobSchedule(Kind kind, @Nullable CronExpression cron, ZoneId zone, Duration period) {
    this.kind = kind;
    this.cron = cron;
    this.zone = zone;
    this.period = period;
  }

  /** A cron schedule, in {@code zone}. */
  static JobSchedule cron(String expression, ZoneId zone) {
    return new JobSchedule(Kind.CRON, CronExpression.parse(expression), zone, Duration.ZERO);
  }

  /** A fixed-rate schedule. */
  static JobSchedule fixedRate(Duration period) {
    return new JobSchedule(Kind.FIXED_RATE, null, ZoneId.of("UTC"), period);
  }

  /** A fixed-delay schedule. */
  static JobSchedule fixedDelay(Duration delay) {
    return new JobSchedule(Kind.FIXED_DELAY, null, ZoneId.of("UTC"), delay);
  }

  /** The {@code @Scheduled} annotations of {@code method} (it may repeat). */
  static Set<Scheduled> annotations(Method method) {
    return AnnotatedElementUtils.getMergedRepeatableAnnotations(method, Scheduled.class);
  }

  /**
   * The schedule of {@code scheduled}, its values resolved by {@code resolver}; null when it is
   * disabled ({@code cron = "-"}).
   *
   * @throws IllegalArgumentException when Spring would refuse it too
   */
  static @Nullable JobSchedule of(Scheduled scheduled, Function<String, String> resolver) {
    String cron = resolver.apply(scheduled.cron());
    if (StringUtils.hasText(cron)) {
      if (Scheduled.CRON_DISABLED.equals(cron)) {
        return null;
      }
      String zone = resolver.apply(scheduled.zone());
      return cron(cron, StringUtils.hasText(zone) ? ZoneId.of(zone) : ZoneId.systemDefault());
    }
    DurationFormat.Unit unit =
        DurationFormat.Unit.fromChronoUnit(scheduled.timeUnit().toChronoUnit());
    if (scheduled.fixedRate() >= 0) {
      return fixedRate(Duration.of(scheduled.fixedRate(), unit.asChronoUnit()));
    }
    String rate = resolver.apply(scheduled.fixedRateString());
    if (StringUtils.hasText(rate)) {
      return fixedRate(DurationFormatterUtils.detectAndParse(rate, unit));
    }
    if (scheduled.fixedDelay() >= 0) {
      return fixedDelay(Duration.of(scheduled.fixedDelay(), unit.asChronoUnit()));
    }
    String delay = resolver.apply(scheduled.fixedDelayString());
    if (StringUtils.hasText(delay)) {
      return fixedDelay(DurationFormatterUtils.detectAndParse(delay, unit));
    }
    return null;
  }

  Kind kind() {
    return this.kind;
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
    CronExpression expression = java.util.Objects.requireNonNull(this.cron);
    ZonedDateTime first = expression.next(after.atZone(this.zone));
    if (first == null || first.toInstant().isAfter(now)) {
      return null;
    }
    Instant latest = java.util.Objects.requireNonNull(previous(now));
    long count = 1;
    ZonedDateTime at = first;
    while (count < MAX_COUNTED) {
      at = expression.next(at);
      if (at == null || at.toInstant().isAfter(latest)) {
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

  /** The latest cron time at or before {@code time}; null when there is none in ~100 years. */
  private @Nullable Instant previous(Instant time) {
    CronExpression expression = java.util.Objects.requireNonNull(this.cron);
    ZonedDateTime at = time.atZone(this.zone);
    // Look back a little further each time, until a cron time falls between, then walk forward.
    for (Duration back = Duration.ofSeconds(1);
        back.compareTo(Duration.ofDays(36_600)) <= 0;
        back = back.multipliedBy(4)) {
      ZonedDateTime candidate = expression.next(at.minus(back));
      if (candidate != null && !candidate.isAfter(at)) {
        ZonedDateTime next = expression.next(candidate);
        while (next != null && !next.isAfter(at)) {
          candidate = next;
          next = expression.next(candidate);
        }
        return candidate.toInstant();
      }
    }
    return null;
  }

  @Override
  public String toString() {
    return switch (this.kind) {
      case CRON -> "cron '" + this.cron + "' in " + this.zone;
      case FIXED_RATE -> "fixed rate " + this.period;
      case FIXED_DELAY -> "fixed delay " + this.period;
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
