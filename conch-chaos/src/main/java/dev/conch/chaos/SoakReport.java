package dev.conch.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * What a soak found: the life of every supervised command (from the files it wrote), the faults,
 * and the checks of issue 8 over them: overlaps, token order, orphans, recovery time, availability.
 */
final class SoakReport {

  /** One supervised command's life: [start, last beat], with the token it ran under. */
  record Interval(int candidate, long token, long start, long end, long pid) {}

  /** One injected fault, from its start to the moment it was healed (epoch nanoseconds). */
  record FaultRecord(SoakOptions.Fault kind, String target, int candidate, long start, long heal) {}

  /** Two commands alive at once; {@code frozen} when the earlier one's supervisor was stopped. */
  record Overlap(Interval earlier, Interval later, long nanos, boolean frozen) {}

  final List<Interval> intervals;
  final List<FaultRecord> faults;
  final List<Overlap> overlaps = new ArrayList<>();
  final List<Long> recoveries = new ArrayList<>();
  final int orphans;
  final long runStart;
  final long runEnd;
  final Duration ttl;
  boolean tokensIncrease = true;
  double availability;

  SoakReport(
      Path dir, List<FaultRecord> faults, int orphans, long runStart, long runEnd, Duration ttl) {
    this.intervals = readIntervals(dir);
    this.faults = faults;
    this.orphans = orphans;
    this.runStart = runStart;
    this.runEnd = runEnd;
    this.ttl = ttl;
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
                "  %-18s %3d   time to a leader after it ended: p50 %5.0f ms, max %5.0f ms%n",
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
    out.append(
        String.format(
            "time to a leader after a fault ends: p50 %.0f ms, max %.0f ms (ttl %d s)%n",
            p50Recovery() / 1e6, maxRecovery() / 1e6, ttl.toSeconds()));
    out.append(String.format("availability: %.1f%%%n", availability * 100));
    return out.toString();
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
