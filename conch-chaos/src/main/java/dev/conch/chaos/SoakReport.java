package dev.conch.chaos;

import dev.conch.ElectionOptions;
import dev.conch.etcd.SessionOptions;
import dev.conch.etcd.TimingBudget;
import dev.conch.process.ExternalCommandRunner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * What a soak found: the life of every supervised command (from the files it wrote), the faults,
 * and the checks over them: safety (overlaps, token order, orphans, recovery time, availability)
 * and steadiness (terms per hour and needless losses: a term that ended while no disruptive fault
 * was under way). docs/chaos.md describes each check.
 *
 * <p>Longer than most files here, on purpose: every check reads the same intervals and faults, and
 * the rendered report must stay next to what it renders.
 */
final class SoakReport {

  /** One supervised command's life: [start, last beat], with the token it ran under. */
  record Interval(int candidate, long token, long start, long end, long pid) {}

  /** One injected fault, from its start to the moment it was healed (epoch nanoseconds). */
  record FaultRecord(SoakOptions.Fault kind, String target, int candidate, long start, long heal) {}

  /** A term that ended before the soak did, and the fault that began last before it ended. */
  /** How far back from a loss {@link #logExcerpt} looks: the renewal budget of a 10 s TTL. */
  static final Duration EXCERPT_BEFORE = Duration.ofSeconds(6);

  /** The most lines {@link #logExcerpt} keeps. */
  static final int EXCERPT_LINES = 12;

  record Loss(Interval term, @Nullable FaultRecord after, String reason) {}

  /** A supervisor's log line reporting a loss: the reason in parentheses. */
  private static final Pattern LOST = Pattern.compile("leadership lost \\(([A-Z_]+)\\)");

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
    this.dir = dir;
    this.writes = writes;
    this.probe = probe;
    this.intervals = readIntervals(dir);
    this.faults = faults;
    this.orphans = orphans;
    this.runStart = runStart;
    this.runEnd = runEnd;
    this.ttl = ttl;
    this.onlyBenign = onlyBenign;
    analyse();
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
        losses.add(new Loss(term, lastFaultBefore(term.end()), lossReason(term)));
      }
    }
  }

  /**
   * The reason the term's supervisor logged for the loss (the first "leadership lost (REASON)" line
   * stamped from 2 s before the command's last beat to 15 s after), or "no reason logged".
   */
  private String lossReason(Interval term) {
    Path log = dir.resolve("supervisor-" + term.candidate() + ".log");
    long from = term.end() - 2_000_000_000L;
    long to = term.end() + 15_000_000_000L;
    try (Stream<String> lines = Files.lines(log, StandardCharsets.UTF_8)) {
      return lines
          .filter(line -> line.contains("leadership lost ("))
          .filter(
              line -> {
                long at = stamp(line);
                return at >= from && at <= to;
              })
          .map(LOST::matcher)
          .filter(Matcher::find)
          .map(m -> m.group(1))
          .findFirst()
          .orElse("no reason logged");
    } catch (IOException | UncheckedIOException e) {
      return "no reason logged";
    }
  }

  /**
   * What the term's supervisor warned of in the last {@link #EXCERPT_BEFORE} of the term and the
   * second after it (at most {@link #EXCERPT_LINES} lines, the last ones): the renewal errors
   * behind a needless loss, so that a failed soak in CI says why without the logs it deletes.
   */
  List<String> logExcerpt(Interval term) {
    Path log = dir.resolve("supervisor-" + term.candidate() + ".log");
    long from = term.end() - EXCERPT_BEFORE.toNanos();
    long to = term.end() + 1_000_000_000L;
    try (Stream<String> lines = Files.lines(log, StandardCharsets.UTF_8)) {
      List<String> found =
          lines
              .filter(line -> line.contains(" WARN ") || line.contains(" ERROR "))
              .filter(
                  line -> {
                    long at = stamp(line);
                    return at >= from && at <= to;
                  })
              .toList();
      return found.subList(Math.max(0, found.size() - EXCERPT_LINES), found.size());
    } catch (IOException | UncheckedIOException e) {
      return List.of();
    }
  }

  /** The ISO-8601 instant a log line starts with, in epoch nanoseconds, or -1. */
  private static long stamp(String line) {
    int space = line.indexOf(' ');
    try {
      Instant at = Instant.parse(space > 0 ? line.substring(0, space) : line);
      return at.getEpochSecond() * 1_000_000_000L + at.getNano();
    } catch (DateTimeParseException e) {
      return -1;
    }
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

  /** The report as the soak prints it. */
  String render() {
    StringBuilder out = new StringBuilder();
    out.append(String.format("commands run: %d, faults: %d%n", intervals.size(), faults.size()));
    out.append("  commands by candidate:");
    intervals.stream()
        .collect(
            java.util.stream.Collectors.groupingBy(
                Interval::candidate,
                java.util.TreeMap::new,
                java.util.stream.Collectors.counting()))
        .forEach((candidate, count) -> out.append(String.format(" %d: %d", candidate, count)));
    out.append(String.format("%n"));
    for (SoakOptions.Fault kind : SoakOptions.Fault.values()) {
      List<Long> times = new ArrayList<>();
      for (int i = 0; i < faults.size(); i++) {
        if (faults.get(i).kind() == kind) {
          times.add(recoveries.get(i));
        }
      }
      if (!times.isEmpty()) {
        times.sort(null);
        out.append(
            String.format(
                "  %-19s %3d   time to a leader after it ended: p50 %5.0f ms, max %5.0f ms%n",
                kind,
                times.size(),
                times.get(times.size() / 2) / 1e6,
                times.get(times.size() - 1) / 1e6));
      }
    }
    out.append(String.format("overlaps, unexplained: %d (must be 0)%n", unexplainedOverlaps()));
    for (Overlap o : overlaps) {
      out.append(
          String.format(
              "  %s overlap: token %d (candidate %d) with token %d (candidate %d), %.0f ms%n",
              o.frozen() ? "frozen-supervisor" : "UNEXPLAINED",
              o.earlier().token(),
              o.earlier().candidate(),
              o.later().token(),
              o.later().candidate(),
              o.nanos() / 1e6));
    }
    out.append(
        String.format("frozen overlaps fenced (later token larger): %s%n", frozenOverlapsFenced()));
    out.append(String.format("tokens strictly increasing: %s%n", tokensIncrease));
    out.append(String.format("orphaned processes: %d (must be 0)%n", orphans));
    if (writes != null) {
      out.append(
          String.format(
              "database writes through the fence: %d committed, %d refused as stale;"
                  + " stale commits: %d (must be 0)%n",
              writes.committed(), writes.refused(), writes.staleCommits()));
    }
    out.append(
        String.format(
            "time to a leader after a fault ends: p50 %.0f ms, max %.0f ms (ttl %d s)%n",
            p50Recovery() / 1e6, maxRecovery() / 1e6, ttl.toSeconds()));
    out.append(String.format("availability: %.1f%%%n", availability * 100));
    long before = intervals.stream().filter(i -> i.start() < runStart).count();
    out.append(
        String.format(
            "terms: %d started during the run (%d before the first fault)%n",
            termsStartedInRun(), before));
    out.append(
        String.format(
            "terms per hour%s: %.1f%n", onlyBenign ? " under benign faults" : "", termsPerHour()));
    EtcdProbe known = probe;
    if (known != null) {
      for (Loss loss : etcdLosses()) {
        out.append(
            String.format(
                "loss explained by etcd: token %d (candidate %d) ended %s (%s): etcd answered no lease"
                    + " renewal for %d ms of the %d ms before (the renewal budget tolerates %d ms)%n",
                loss.term().token(),
                loss.term().candidate(),
                clock(loss.term().end()),
                loss.reason(),
                etcdGap(loss.term().end()).toMillis(),
                known.window().toMillis(),
                known.tolerated().toMillis()));
      }
    }
    List<Loss> needless = needlessLosses();
    out.append(
        String.format(
            "needless losses: %d of %d losses%s%n",
            needless.size(),
            losses.size(),
            onlyBenign
                ? " (under benign faults every loss etcd does not explain is needless; steady means 0)"
                : ""));
    for (Loss loss : needless) {
      FaultRecord fault = loss.after();
      out.append(
          String.format(
              "  token %d (candidate %d, a %.1f s term) ended %s (%s), %s%n",
              loss.term().token(),
              loss.term().candidate(),
              (loss.term().end() - loss.term().start()) / 1e9,
              clock(loss.term().end()),
              loss.reason(),
              fault == null
                  ? "before any fault"
                  : String.format(
                      "%.0f ms after %s %s began (%s)",
                      (loss.term().end() - fault.start()) / 1e6,
                      fault.kind(),
                      fault.target(),
                      loss.term().end() <= fault.heal()
                          ? "still under way"
                          : String.format(
                              "healed %.0f ms before", (loss.term().end() - fault.heal()) / 1e6))));
      for (String line : logExcerpt(loss.term())) {
        out.append("      ").append(line).append(System.lineSeparator());
      }
    }
    return out.toString();
  }

  /** Time of day (UTC) of an epoch-nanosecond instant, as the soak's fault log prints it. */
  static String clock(long epochNanos) {
    return java.time.LocalTime.ofNanoOfDay(Math.floorMod(epochNanos, 86_400_000_000_000L))
        .truncatedTo(java.time.temporal.ChronoUnit.MILLIS)
        .toString();
  }

  private static List<Interval> readIntervals(Path dir) {
    List<Interval> found = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path start : files.filter(p -> p.toString().endsWith(".start")).toList()) {
        String[] fields = Files.readString(start).trim().split(" ");
        if (fields.length < 4) {
          continue; // killed while writing its first line: it never ran
        }
        Path beat = Path.of(start.toString().replace(".start", ".beat"));
        long begin = Long.parseLong(fields[2]);
        long end = Files.exists(beat) ? Long.parseLong(Files.readString(beat).trim()) : begin;
        found.add(
            new Interval(
                Integer.parseInt(fields[0]),
                Long.parseLong(fields[1]),
                begin,
                end,
                Long.parseLong(fields[3])));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    found.sort(Comparator.comparingLong(Interval::start));
    return found;
  }
}
