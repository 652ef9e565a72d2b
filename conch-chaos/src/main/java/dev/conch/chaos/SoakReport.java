package dev.conch.chaos;

import dev.conch.ElectionOptions;
import dev.conch.etcd.SessionOptions;
import dev.conch.etcd.TimingBudget;
import dev.conch.process.ExternalCommandRunner;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What a soak found: the life of every supervised command (from the files it wrote), the faults,
 * and the checks over them: safety (overlaps, token order, orphans, recovery time, availability)
 * and steadiness (terms per hour and needless losses: a term that ended while no disruptive fault
 * was under way), and the office's recorded history against the terms seen ({@link HistoryCheck}).
 * docs/chaos.md describes each check.
 *
 * <p>The checks' arithmetic only: {@link SoakFiles} reads the soak's directory and {@link
 * SoakReportText} formats the report. Every check reads the same intervals and faults, so they stay
 * together in one class.
 */
final class SoakReport {

  /** One supervised command's life: [start, last beat], with the token it ran under. */
  record Interval(int candidate, long token, long start, long end, long pid) {}

  /** One injected fault, from its start to the moment it was healed (epoch nanoseconds). */
  record FaultRecord(SoakOptions.Fault kind, String target, int candidate, long start, long heal) {}

  /**
   * A supervisor process of candidate {@code candidate}, started at {@code started} (epoch
   * nanoseconds): the holder its terms' records must name.
   */
  record Supervisor(int candidate, long pid, long started) {}

  /** A term that ended before the soak did, and the fault that began last before it ended. */
  record Loss(Interval term, @Nullable FaultRecord after, String reason) {}

  /**
   * A term whose last beat is this close to the end of the run was stopped by the soak's own
   * shutdown (its command beats every 50 ms; the slack covers a loaded machine).
   */
  private static final long END_SLACK = 1_000_000_000L;

  /** Two commands alive at once; {@code frozen} when the earlier one's supervisor was stopped. */
  record Overlap(Interval earlier, Interval later, long nanos, boolean frozen) {}

  private final Path dir;
  final List<Interval> intervals;
  final List<FaultRecord> faults;
  final List<Overlap> overlaps = new ArrayList<>();
  final List<Long> recoveries = new ArrayList<>();
  final int orphans;
  final long runStart;
  final long runEnd;
  final Duration ttl;
  final boolean onlyBenign;
  final List<Loss> losses = new ArrayList<>();
  boolean tokensIncrease = true;
  double availability;

  /**
   * What etcd answered the soak's own lease renewals ({@link LeaseProbe}): a loss during a silence
   * of etcd longer than the renewal budget tolerates is etcd's, not needless. Null without a probe.
   */
  final @Nullable EtcdProbe probe;

  /**
   * The times etcd answered the probe's renewals, the renewal window W of the supervisors (TTL
   * minus kill-after minus the 1 s margin) and the silence within it their budget tolerates (the
   * timing budget's outage ridden out, W minus the renew interval minus an attempt).
   */
  record EtcdProbe(List<Long> answers, Duration window, Duration tolerated) {

    /** conch elect's call timeout, which bounds a renewal attempt. */
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(3);

    /** The probe of supervisors with {@code ttl} and {@code killAfter}. */
    static EtcdProbe of(List<Long> answers, Duration ttl, Duration killAfter) {
      TimingBudget budget =
          TimingBudget.ofRunner(
              SessionOptions.defaults().withTtl(ttl).withTimeout(CALL_TIMEOUT),
              ElectionOptions.builder("chaos")
                  .stopTimeout(killAfter.plus(ExternalCommandRunner.STOP_SLACK))
                  .build(),
              killAfter,
              ExternalCommandRunner.DEFAULT_HOOK_TIMEOUT,
              false);
      return new EtcdProbe(answers, budget.window(), budget.outageRiddenOut());
    }
  }

  /** The commands' writes through the fence into the soak's database; null without one. */
  final SoakDatabase.@Nullable Writes writes;

  /** The office's recorded history against the terms seen here; null when it was not read. */
  final @Nullable HistoryCheck history;

  SoakReport(
      Path dir,
      List<FaultRecord> faults,
      int orphans,
      long runStart,
      long runEnd,
      Duration ttl,
      boolean onlyBenign) {
    this(dir, faults, orphans, runStart, runEnd, ttl, onlyBenign, null, null);
  }

  SoakReport(
      Path dir,
      List<FaultRecord> faults,
      int orphans,
      long runStart,
      long runEnd,
      Duration ttl,
      boolean onlyBenign,
      SoakDatabase.@Nullable Writes writes,
      @Nullable EtcdProbe probe) {
    this(dir, faults, orphans, runStart, runEnd, ttl, onlyBenign, writes, probe, null);
  }

  /**
   * @param recorded the office's history as read at the end, checked against the terms seen here
   *     ({@link HistoryCheck}); null when it was not read
   */
  SoakReport(
      Path dir,
      List<FaultRecord> faults,
      int orphans,
      long runStart,
      long runEnd,
      Duration ttl,
      boolean onlyBenign,
      SoakDatabase.@Nullable Writes writes,
      @Nullable EtcdProbe probe,
      @Nullable OfficeHistory recorded) {
    this.dir = dir;
    this.writes = writes;
    this.probe = probe;
    this.intervals = SoakFiles.intervals(dir);
    this.faults = faults;
    this.orphans = orphans;
    this.runStart = runStart;
    this.runEnd = runEnd;
    this.ttl = ttl;
    this.onlyBenign = onlyBenign;
    analyse();
    this.history =
        recorded == null ? null : new HistoryCheck(intervals, this::cause, recorded, ttl);
  }

  private void analyse() {
    for (int i = 0; i < intervals.size(); i++) {
      Interval earlier = intervals.get(i);
      for (int j = i + 1; j < intervals.size(); j++) {
        Interval later = intervals.get(j);
        if (later.start() < earlier.end()) {
          overlaps.add(
              new Overlap(earlier, later, earlier.end() - later.start(), frozen(earlier, later)));
        }
      }
      if (i > 0 && intervals.get(i - 1).token() >= earlier.token()) {
        tokensIncrease = false;
      }
    }
    for (FaultRecord fault : faults) {
      recoveries.add(recovery(fault.heal()));
    }
    availability = covered() / (double) (runEnd - runStart);
    for (Interval term : intervals) {
      if (term.end() < runEnd - END_SLACK) {
        losses.add(new Loss(term, lastFaultBefore(term.end()), SoakFiles.lossReason(dir, term)));
      }
    }
  }

  /**
   * What ended a term, for its recorded end ({@link HistoryCheck#expected}): the soak's own stop
   * when its command beat until the run's end; else the fault that could end it (an etcd fault, or
   * one aimed at its own supervisor) under way when its command beat last, stamped just after that
   * ({@link #BEAT_SLACK}: a kill is stamped once done) or healed less than TTL + 2 s before, the
   * latest such; else none. Finer than {@link Loss#after}, the fault that began last before the
   * end, whatever it was aimed at.
   */
  HistoryCheck.Cause cause(Interval term) {
    if (term.end() >= runEnd - END_SLACK) {
      return HistoryCheck.Cause.END_OF_RUN;
    }
    long after = ttl.plusSeconds(2).toNanos();
    FaultRecord found = null;
    for (FaultRecord fault : faults) {
      boolean aimed = fault.candidate() < 0 || fault.candidate() == term.candidate();
      if (aimed
          && fault.start() - BEAT_SLACK <= term.end()
          && term.end() <= fault.heal() + after
          && (found == null || fault.start() > found.start())) {
        found = fault;
      }
    }
    return found == null ? HistoryCheck.Cause.NO_FAULT : HistoryCheck.Cause.of(found);
  }

  private @Nullable FaultRecord lastFaultBefore(long time) {
    FaultRecord last = null;
    for (FaultRecord fault : faults) {
      if (fault.start() <= time && (last == null || fault.start() > last.start())) {
        last = fault;
      }
    }
    return last;
  }

  /**
   * Whether a loss at {@code time} is explained by a disruptive fault: one under way then (or
   * stamped just after it), or healed less than TTL + 2 s before (a lease that was lost must
   * expire, a successor must win).
   */
  private boolean disrupted(long time) {
    long after = ttl.plusSeconds(2).toNanos();
    return faults.stream()
        .anyMatch(
            f -> !f.kind().benign() && f.start() - BEAT_SLACK <= time && time <= f.heal() + after);
  }

  /**
   * A term's end is its command's last heartbeat (every 50 ms), and a fault is stamped once its
   * action is done: a command killed by a fault can have beaten last a little before the fault's
   * stamp.
   */
  private static final long BEAT_SLACK = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(500);

  /**
   * Terms that ended while no supervisor was killed, frozen or cut off, etcd kept a quorum and
   * answered lease renewals (the probe's) within what the renewal budget tolerates: a leader that
   * should have kept its command running. Under benign faults, every loss etcd does not explain.
   */
  List<Loss> needlessLosses() {
    return losses.stream()
        .filter(l -> !disrupted(l.term().end()) && !etcdSilent(l.term().end()))
        .toList();
  }

  /** Losses no disruptive fault explains, during which etcd answered no renewal for too long. */
  List<Loss> etcdLosses() {
    return losses.stream()
        .filter(l -> !disrupted(l.term().end()) && etcdSilent(l.term().end()))
        .toList();
  }

  private boolean etcdSilent(long end) {
    EtcdProbe known = probe;
    return known != null && etcdGap(end).compareTo(known.tolerated()) >= 0;
  }

  /**
   * The longest time within the renewal window before {@code end} in which etcd answered none of
   * the probe's renewals (zero without a probe).
   */
  Duration etcdGap(long end) {
    EtcdProbe known = probe;
    if (known == null) {
      return Duration.ZERO;
    }
    long from = end - known.window().toNanos();
    long last = from;
    long longest = 0;
    for (long at : known.answers()) {
      if (at <= from) {
        continue;
      }
      if (at > end) {
        break;
      }
      longest = Math.max(longest, at - last);
      last = at;
    }
    return Duration.ofNanos(Math.max(longest, end - last));
  }

  /** Distinct tokens (terms) whose command started during the run, after the soak began. */
  long termsStartedInRun() {
    return intervals.stream()
        .filter(i -> i.start() >= runStart && i.start() <= runEnd)
        .mapToLong(Interval::token)
        .distinct()
        .count();
  }

  /** New terms per hour of the run. */
  double termsPerHour() {
    return termsStartedInRun() * 3_600e9 / (runEnd - runStart);
  }

  /**
   * Whether every safety check holds: no unexplained or unfenced overlap, token order, orphans, and
   * no stale write committed in the database.
   */
  boolean safe() {
    return unexplainedOverlaps() == 0
        && frozenOverlapsFenced()
        && tokensIncrease
        && orphans == 0
        && (writes == null || writes.staleCommits() == 0);
  }

  /** Whether the earlier command's supervisor was frozen when the later one started. */
  private boolean frozen(Interval earlier, Interval later) {
    return faults.stream()
        .anyMatch(
            f ->
                f.kind() == SoakOptions.Fault.FREEZE_SUPERVISOR
                    && f.candidate() == earlier.candidate()
                    && f.start() <= later.start()
                    && later.start() <= f.heal());
  }

  /** From {@code healed} to the first command alive at or after it. */
  private long recovery(long healed) {
    long best = Long.MAX_VALUE;
    for (Interval interval : intervals) {
      if (interval.start() <= healed && healed <= interval.end()) {
        return 0;
      }
      if (interval.start() > healed) {
        best = Math.min(best, interval.start() - healed);
      }
    }
    return best == Long.MAX_VALUE ? runEnd - healed : best;
  }

  private long covered() {
    long total = 0;
    long reach = runStart;
    for (Interval interval : intervals) {
      long from = Math.max(reach, Math.max(runStart, interval.start()));
      long to = Math.min(runEnd, interval.end());
      if (to > from) {
        total += to - from;
      }
      reach = Math.max(reach, to);
    }
    return total;
  }

  long unexplainedOverlaps() {
    return overlaps.stream().filter(o -> !o.frozen()).count();
  }

  boolean frozenOverlapsFenced() {
    return overlaps.stream()
        .filter(Overlap::frozen)
        .allMatch(o -> o.later().token() > o.earlier().token());
  }

  long maxRecovery() {
    return recoveries.stream().mapToLong(Long::longValue).max().orElse(0);
  }

  long p50Recovery() {
    List<Long> sorted = recoveries.stream().sorted().toList();
    return sorted.isEmpty() ? 0 : sorted.get(sorted.size() / 2);
  }

  /** What the term's supervisor warned of as it ended ({@link SoakFiles#logExcerpt}). */
  List<String> logExcerpt(Interval term) {
    return SoakFiles.logExcerpt(dir, term);
  }

  /** The report as the soak prints it ({@link SoakReportText}). */
  String render() {
    return SoakReportText.render(this);
  }
}
