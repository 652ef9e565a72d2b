package dev.conch.chaos;

import dev.conch.LossReason;
import dev.conch.TermRecord;
import dev.conch.chaos.SoakReport.EtcdProbe;
import dev.conch.chaos.SoakReport.FaultRecord;
import dev.conch.chaos.SoakReport.Interval;
import dev.conch.chaos.SoakReport.Loss;
import dev.conch.chaos.SoakReport.Overlap;
import java.util.ArrayList;
import java.util.List;

/** The text of a {@link SoakReport}, as the soak prints it: formatting only, no checks. */
final class SoakReportText {

  private SoakReportText() {}

  /** The report as the soak prints it. */
  static String render(SoakReport report) {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            "commands run: %d, faults: %d%n", report.intervals.size(), report.faults.size()));
    out.append("  commands by candidate:");
    report.intervals.stream()
        .collect(
            java.util.stream.Collectors.groupingBy(
                Interval::candidate,
                java.util.TreeMap::new,
                java.util.stream.Collectors.counting()))
        .forEach((candidate, count) -> out.append(String.format(" %d: %d", candidate, count)));
    out.append(String.format("%n"));
    for (SoakOptions.Fault kind : SoakOptions.Fault.values()) {
      List<Long> times = new ArrayList<>();
      for (int i = 0; i < report.faults.size(); i++) {
        if (report.faults.get(i).kind() == kind) {
          times.add(report.recoveries.get(i));
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
    out.append(
        String.format("overlaps, unexplained: %d (must be 0)%n", report.unexplainedOverlaps()));
    for (Overlap o : report.overlaps) {
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
        String.format(
            "frozen overlaps fenced (later token larger): %s%n", report.frozenOverlapsFenced()));
    out.append(String.format("tokens strictly increasing: %s%n", report.tokensIncrease));
    out.append(String.format("orphaned processes: %d (must be 0)%n", report.orphans));
    SoakDatabase.Writes writes = report.writes;
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
            report.p50Recovery() / 1e6, report.maxRecovery() / 1e6, report.ttl.toSeconds()));
    out.append(String.format("availability: %.1f%%%n", report.availability * 100));
    long before = report.intervals.stream().filter(i -> i.start() < report.runStart).count();
    out.append(
        String.format(
            "terms: %d started during the run (%d before the first fault)%n",
            report.termsStartedInRun(), before));
    out.append(
        String.format(
            "terms per hour%s: %.1f%n",
            report.onlyBenign ? " under benign faults" : "", report.termsPerHour()));
    EtcdProbe known = report.probe;
    if (known != null) {
      for (Loss loss : report.etcdLosses()) {
        out.append(
            String.format(
                "loss explained by etcd: token %d (candidate %d) ended %s (%s): etcd answered no lease"
                    + " renewal for %d ms of the %d ms before (the renewal budget tolerates %d ms)%n",
                loss.term().token(),
                loss.term().candidate(),
                clock(loss.term().end()),
                loss.reason(),
                report.etcdGap(loss.term().end()).toMillis(),
                known.window().toMillis(),
                known.tolerated().toMillis()));
      }
    }
    List<Loss> needless = report.needlessLosses();
    out.append(
        String.format(
            "needless losses: %d of %d losses%s%n",
            needless.size(),
            report.losses.size(),
            report.onlyBenign
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
      for (String line : report.logExcerpt(loss.term())) {
        out.append("      ").append(line).append(System.lineSeparator());
      }
    }
    HistoryCheck history = report.history;
    if (history != null) {
      history(out, history);
    }
    return out.toString();
  }

  /** The office's recorded history against the terms seen ({@link HistoryCheck}). */
  private static void history(StringBuilder out, HistoryCheck check) {
    OfficeHistory read = check.history;
    String error = read.error();
    if (error != null) {
      out.append(
          String.format("history of office %s: not read: %s%n", OfficeHistory.OFFICE, error));
      return;
    }
    out.append(
        String.format(
            "history of office %s: %d terms recorded (read %d ms after the supervisors stopped%s)%n",
            OfficeHistory.OFFICE,
            read.terms().size(),
            read.waited().toMillis(),
            read.settled() ? "" : ", some still without an end"));
    out.append(
        String.format(
            "  terms observed: %d; recorded with their holder: %d;"
                + " and with an end of the right kind: %d%s%n",
            check.observed,
            check.withHolder,
            check.rightKind,
            check.trimmed > 0 ? "; older than the history keeps: " + check.trimmed : ""));
    out.append("  reasons recorded:");
    check.reasons.forEach((reason, count) -> out.append(String.format(" %s %d", reason, count)));
    out.append(String.format("%n"));
    out.append(
        String.format(
            "  won but never ran: %d (no command started; each ended within ttl + 2 s)%n",
            check.unrun.size()));
    for (HistoryCheck.Unrun unrun : check.unrun) {
      out.append(
          String.format(
              "    token %d (candidate %d, supervisor pid %d): held %d ms, %s: %s%n",
              unrun.term().token(),
              unrun.supervisor().candidate(),
              unrun.supervisor().pid(),
              unrun.held().toMillis(),
              reason(unrun.term()),
              unrun.term().detail()));
    }
    out.append(
        String.format(
            "  observed but missing from the history: %d (must be 0)%n", check.missing().size()));
    mismatches(out, check.missing());
    out.append(
        String.format(
            "  recorded wrongly (holder, order, or an end not of the fault's kind): %d (must be 0)%n",
            check.wrong().size()));
    mismatches(out, check.wrong());
    out.append(
        String.format(
            "  recorded but never observed, unexplained: %d (must be 0)%n",
            check.unexplained.size()));
    for (HistoryCheck.Unexplained entry : check.unexplained) {
      out.append(String.format("    %s%n      recorded: %s%n", entry.why(), entry.entry()));
    }
  }

  /** Each mismatch in full: the token, what the soak observed, what the history recorded. */
  private static void mismatches(StringBuilder out, List<HistoryCheck.Mismatch> mismatches) {
    for (HistoryCheck.Mismatch m : mismatches) {
      Interval term = m.term();
      SoakReport.Supervisor supervisor = m.supervisor();
      TermRecord recorded = m.recorded();
      out.append(
          String.format("    token %d: %s%n", term.token(), String.join("; ", m.problems())));
      out.append(
          String.format(
              "      observed: candidate %d, supervisor pid %s, command %s to %s; ended by %s"
                  + " (expected %s)%n",
              term.candidate(),
              supervisor == null ? "unknown" : Long.toString(supervisor.pid()),
              clock(term.start()),
              clock(term.end()),
              m.cause(),
              m.expected()));
      out.append(
          String.format("      recorded: %s%n", recorded == null ? "nothing" : recorded.toJson()));
    }
  }

  private static String reason(TermRecord term) {
    LossReason reason = term.reason();
    return (reason == null ? "open" : TermRecord.reasonCode(reason)) + " by " + term.recordedBy();
  }

  /** Time of day (UTC) of an epoch-nanosecond instant, as the soak's fault log prints it. */
  static String clock(long epochNanos) {
    return java.time.LocalTime.ofNanoOfDay(Math.floorMod(epochNanos, 86_400_000_000_000L))
        .truncatedTo(java.time.temporal.ChronoUnit.MILLIS)
        .toString();
  }
}
