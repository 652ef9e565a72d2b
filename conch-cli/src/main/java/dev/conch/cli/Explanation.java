package dev.conch.cli;

import dev.conch.Durations;
import dev.conch.etcd.TimingBudget;
import dev.conch.process.ExternalCommandRunner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What {@code conch elect <office> --explain} prints: the timing budget of run mode with the flags
 * given, one figure per line, computed without asking etcd. How each figure follows from the code
 * is in the repository's {@code docs/core.md}.
 */
final class Explanation {

  private Explanation() {}

  /**
   * The lines for {@code office} run with {@code budget}; {@code killAfter} and {@code onLose} as
   * given (the on-lose hook, or {@code null}).
   */
  static List<String> lines(
      String office,
      TimingBudget budget,
      Duration killAfter,
      Duration hookTimeout,
      @Nullable String onLose) {
    List<String> lines = new ArrayList<>();
    lines.add(
        "office "
            + office
            + ": ttl "
            + f(budget.ttl())
            + " asked for, kill-after "
            + f(killAfter)
            + ", hook-timeout "
            + f(hookTimeout)
            + "; D = send time of the last acknowledged renewal + ttl (etcd cannot expire the"
            + " lease before D)");
    lines.add(
        "  etcd grants the ttl asked for unless its minimum (1.5 election timeouts, 2s with its"
            + " defaults) is longer; a longer one only makes a crash fail-over slower, and run mode"
            + " logs the ttl granted when it differs");
    line(
        lines,
        "leadership dropped",
        TimingBudget.relative(budget.lossLead().negated())
            + " (kill-after + "
            + f(budget.lossLead().minus(killAfter))
            + " to stop and for the safety margin), leaving "
            + f(budget.window())
            + " to renew in");
    line(
        lines,
        "renewals",
        "every "
            + f(budget.renewInterval())
            + ", each attempt up to "
            + f(budget.attemptTimeout())
            + "; one not answered within a quarter of that stays open, and another goes to the next"
            + " endpoint beside it; after an attempt that timed out the next goes at once, after"
            + " one that failed fast (no connection, no raft leader) up to "
            + f(budget.retryAfterFastFailure())
            + " later");
    line(
        lines,
        "etcd outage",
        "ridden out up to "
            + f(budget.outageRiddenOut())
            + " whenever it begins (up to "
            + f(budget.window().minus(budget.attemptTimeout()))
            + " just after a renewal)");
    line(lines, "raft leader change", budget.raftLeaderChange());
    line(
        lines,
        "crash fail-over",
        f(budget.ttl().minus(budget.renewInterval()))
            + " to "
            + f(budget.crashFailover())
            + " + a few round trips (the ttl left since the last renewal + etcd's "
            + f(TimingBudget.EXPIRY_SCAN)
            + " expiry scan; with the ttl asked for)");
    line(
        lines,
        "graceful hand-over",
        "up to "
            + f(budget.gracefulHandover())
            + " + a few round trips ("
            + (onLose == null
                ? "the command's SIGTERM grace"
                : "the command's SIGTERM grace, then on-lose and its own kill-after")
            + ", and after a SIGKILL up to "
            + f(ExternalCommandRunner.KILL_WAIT)
            + " for "
            + (onLose == null ? "its process group" : "each process group")
            + " to be gone)");
    // SIGTERM at D - loss lead, SIGKILL kill-after later (the stop timeout is kill-after + slack).
    line(
        lines,
        "command killed",
        "by " + TimingBudget.relative(killAfter.minus(budget.lossLead())) + " at the latest");
    line(
        lines,
        "on-lose hook",
        (onLose == null ? "none given; one would be killed" : "killed")
            + " by "
            + TimingBudget.relative(budget.loseHookEnd())
            + " after a loss (a successor may start at D); after a resign it has its"
            + " hook-timeout");
    line(
        lines,
        "process pause",
        "up to "
            + f(budget.fencedOnlyPause())
            + " still ends with the command killed before D; after a longer one the command may"
            + " overlap a successor's and only the fencing token (CONCH_REV) protects");
    return lines;
  }

  private static void line(List<String> lines, String label, String text) {
    lines.add(String.format("%-20s%s", label + ":", text));
  }

  private static String f(Duration duration) {
    return Durations.format(duration);
  }
}
