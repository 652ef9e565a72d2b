package dev.conch.spring.leaderonly;

import dev.conch.Leadership;
import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One {@code @Scheduled} {@link LeaderOnly @LeaderOnly} method: its office (empty for the default
 * office), its schedule (as Spring holds it, known once Spring scheduled it) and misfire policy,
 * how its record and meters name it, the bean to call it on when a missed firing is run, and the
 * last record this instance wrote or read.
 */
final class LeaderOnlyJob {

  private final String office;

  private final Method method;

  /** Null until read from the tasks Spring holds ({@link HeldSchedules}). */
  private volatile @Nullable JobSchedule schedule;

  private final Misfire misfire;

  private final Duration threshold;

  private volatile @Nullable Object bean;

  /** The token of the last term this instance looked for missed firings in; guarded by this. */
  private long examined;

  /** The record as this instance last saw it, and the token of the term it saw it in. */
  private volatile @Nullable Seen seen;

  /** The firing this instance ran as a misfire in the term of that token; not run again. */
  private volatile @Nullable Seen recovered;

  LeaderOnlyJob(String office, Method method, Misfire misfire, Duration threshold) {
    this.office = office;
    this.method = method;
    this.misfire = misfire;
    this.threshold = threshold;
  }

  /** The office as the annotation names it, resolved; empty for the default office. */
  String office() {
    return this.office;
  }

  Method method() {
    return this.method;
  }

  /** How the record names the job: the canonical class name and the method, so none collide. */
  String name() {
    String type = this.method.getDeclaringClass().getName().replace('$', '.');
    return type + "." + this.method.getName() + "()";
  }

  /** How the meters and the test kit name it: {@code Class.method()}. */
  String tag() {
    return LeaderOnlyInvocations.methodName(this.method);
  }

  /** The schedule; only for a job whose schedule is known ({@link #scheduled()}). */
  JobSchedule schedule() {
    return Objects.requireNonNull(this.schedule, "the schedule of " + tag() + " is not known yet");
  }

  /** Whether its schedule is known. */
  boolean scheduled() {
    return this.schedule != null;
  }

  void schedule(JobSchedule schedule) {
    this.schedule = schedule;
  }

  /** The record of {@code term} claiming {@code firing}, a run that starts at {@code now}. */
  JobRecord claim(Leadership term, Instant firing, Instant now) {
    return new JobRecord(
        term.office(),
        name(),
        term.token(),
        Objects.requireNonNullElse(term.holder().id(), ""),
        firing,
        now,
        null,
        JobRecord.Outcome.RUNNING);
  }

  Misfire misfire() {
    return this.misfire;
  }

  Duration threshold() {
    return this.threshold;
  }

  /** Whether the term of {@code token} has yet to look for missed firings; then it will. */
  synchronized boolean examine(long token) {
    if (this.examined == token) {
      return false;
    }
    this.examined = token;
    return true;
  }

  @Nullable Object bean() {
    return this.bean;
  }

  void bean(Object proxy) {
    if (this.bean == null) {
      this.bean = proxy;
    }
  }

  /** The record last seen in the term of {@code token}, if any. */
  JobRecords.@Nullable Versioned seen(long token) {
    Seen last = this.seen;
    return (last != null && last.token() == token) ? last.record() : null;
  }

  /** The record last seen, in any term. */
  @Nullable JobRecord last() {
    Seen last = this.seen;
    return (last != null) ? last.record().record() : null;
  }

  void seen(long token, JobRecords.@Nullable Versioned record) {
    if (record != null) {
      this.seen = new Seen(token, record);
    } else if (this.seen != null) {
      // Forget the revision (it is stale), keep what the endpoint shows.
      this.seen = new Seen(Long.MIN_VALUE, this.seen.record());
    }
  }

  /** Whether this instance already ran {@code firing} as a misfire in the term of {@code token}. */
  boolean recovered(long token, Instant firing) {
    Seen last = this.recovered;
    return last != null
        && last.token() == token
        && last.record().record().scheduled().equals(firing);
  }

  void recovered(long token, JobRecords.Versioned claim) {
    this.recovered = new Seen(token, claim);
  }

  private record Seen(long token, JobRecords.Versioned record) {}
}
