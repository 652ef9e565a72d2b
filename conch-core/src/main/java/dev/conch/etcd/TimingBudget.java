package dev.conch.etcd;

import dev.conch.Durations;
import dev.conch.ElectionOptions;
import dev.conch.InvalidArgumentException;
import dev.conch.process.ExternalCommandRunner;
import java.time.Duration;
import java.util.Objects;

/**
 * What the settings of one office promise in time, derived from the code that keeps them rather
 * than left for the user to work out: the longest etcd outage a leader rides out, the worst crash
 * fail-over and graceful hand-over, how late a lose hook may end, and the longest pause of this
 * process after which no work of the old term still runs. Nothing here asks etcd; {@code conch
 * elect --explain} prints it, a Spring application logs it once per office and its {@code conch}
 * endpoint shows it. The derivation of each figure is in the repository's {@code docs/core.md}.
 *
 * <p>D is the send time of the last acknowledged renewal plus the TTL: etcd cannot expire the lease
 * before D, so after a lost lease a successor starts at D at the earliest. Offsets relative to D
 * are signed: {@code -1s} is a second before D. Round trips to etcd (a few, tens of milliseconds on
 * a LAN) come on top of the fail-over and hand-over figures.
 *
 * @param ttl the lease TTL asked for. etcd grants it unless its minimum TTL (1.5 election timeouts,
 *     rounded up to a second: 2 s with its defaults) is longer; a longer lease delays only a crash
 *     fail-over, and the session logs the TTL granted when it differs
 * @param lossLead how long before D leadership is dropped: stop timeout plus safety margin
 * @param renewInterval how often the lease is renewed while all is well ({@link RenewalBudget})
 * @param attemptTimeout how long one renewal attempt may take before the next one starts
 * @param outageRiddenOut the longest etcd outage (stall, lost requests, an etcd raft leader change)
 *     that costs no leadership, whenever in the renewal cycle it begins: {@code W - renewInterval -
 *     attemptTimeout} with {@code W = ttl - lossLead} (the outage may begin just before a renewal
 *     is due, and the attempt that ends it may be one sent up to an attempt timeout after it ended,
 *     when the one in flight was lost)
 * @param crashFailover the longest an office stays without a leader after its holder's process dies
 *     while etcd is healthy: the whole TTL left after a renewal, plus etcd's expiry scan
 * @param gracefulHandover the longest a resign or shutdown takes before the successor can win: the
 *     lose side's stop (per lose hook for an election's own hooks; a runner's includes, for each
 *     process group it stops, the {@link ExternalCommandRunner#KILL_WAIT} after a SIGKILL)
 * @param loseHookEnd relative to D, after an involuntary loss, the latest a lose hook is waited for
 *     or may run: the safety margin before D. An election's own hook still running then is
 *     interrupted and left behind (one that heeds interrupts ends about then; one that ignores them
 *     cannot be stopped and runs on; those whose turn comes later are called then and not waited
 *     for); a runner's {@code --on-lose} is killed then. After a resign (lease still renewed, no
 *     successor yet) a lose hook keeps its whole hook timeout instead. Any time after D the work
 *     may overlap a successor's
 * @param fencedOnlyPause the longest freeze of this process (GC pause, SIGSTOP, a suspended VM)
 *     after which its work is still stopped before D minus the safety margin; after a longer one
 *     the work may overlap a successor's and only the fencing token protects
 * @param runner whether these are a runner's figures (a command, SIGTERM then SIGKILL), else an
 *     election's own hooks
 */
public record TimingBudget(
    Duration ttl,
    Duration lossLead,
    Duration renewInterval,
    Duration attemptTimeout,
    Duration outageRiddenOut,
    Duration crashFailover,
    Duration gracefulHandover,
    Duration loseHookEnd,
    Duration fencedOnlyPause,
    boolean runner) {

  /**
   * How often etcd looks for expired leases ({@code lessor.go}, {@code revokeExpiredLeases}): an
   * expired lease is revoked up to this long after it expired.
   */
  public static final Duration EXPIRY_SCAN = Duration.ofMillis(500);

  /**
   * How long an etcd raft leader change may leave every lease renewal unanswered, with etcd's
   * default election timeout (1 s): the followers notice the loss after one to two election
   * timeouts, a split vote costs another, and the new leader's lessor answers once it has committed
   * an entry of its term. Measured on 3 members of etcd 3.4 on one host, a SIGKILLed leader left
   * renewals unanswered for at most 2.7 s on a quiet machine and 3.2 s on a loaded one
   * (docs/chaos.md, "A raft leader change"); budgeted with a margin. A budget that does not ride
   * this out says so.
   */
  public static final Duration RAFT_LEADER_CHANGE = Duration.ofSeconds(4);

  /** Checks that every figure is there. */
  public TimingBudget {
    Objects.requireNonNull(ttl, "ttl");
    Objects.requireNonNull(lossLead, "lossLead");
    Objects.requireNonNull(renewInterval, "renewInterval");
    Objects.requireNonNull(attemptTimeout, "attemptTimeout");
    Objects.requireNonNull(outageRiddenOut, "outageRiddenOut");
    Objects.requireNonNull(crashFailover, "crashFailover");
    Objects.requireNonNull(gracefulHandover, "gracefulHandover");
    Objects.requireNonNull(loseHookEnd, "loseHookEnd");
    Objects.requireNonNull(fencedOnlyPause, "fencedOnlyPause");
  }

  /**
   * The figures of an election whose work is stopped by its own lose hooks ({@code @OnLeadership},
   * a {@code LeadershipHandler}).
   *
   * @throws InvalidArgumentException ({@code stop-timeout}) when the loss lead leaves too little of
   *     the TTL to renew in, as {@link EtcdSession#election} would
   */
  public static TimingBudget of(SessionOptions session, ElectionOptions election) {
    // The hooks start when the term ends, at D - loss lead; nothing is waited for past D - margin
    // (LeadershipTerm.loseTimers: a hook still running is interrupted, later ones are called and
    // not waited for), whatever the hook timeout. A process must wake by D - loss lead for its
    // hooks to get their whole stop timeout before that cut.
    return of(session, election, election.hookTimeout(), election.lossLead(), false);
  }

  /**
   * The figures of a runner ({@code conch elect ... -- cmd}, the {@code ExternalCommandRunner}
   * bean) whose election has {@code election}'s options (the stop timeout already raised to
   * kill-after + {@code ExternalCommandRunner.STOP_SLACK}).
   *
   * @param killAfter how long the command (and the on-lose hook, after its timeout) gets between
   *     SIGTERM and SIGKILL
   * @param hookTimeout how long the on-lose hook may run before it is stopped in turn
   * @param onLose whether there is an on-lose hook (it lengthens a graceful hand-over)
   * @throws InvalidArgumentException ({@code stop-timeout}) when the loss lead leaves too little of
   *     the TTL to renew in
   */
  public static TimingBudget ofRunner(
      SessionOptions session,
      ElectionOptions election,
      Duration killAfter,
      Duration hookTimeout,
      boolean onLose) {
    // SIGTERM at D - loss lead; the grace is kill-after, cut to end by D - margin: SIGKILL at
    // D - loss lead + min(kill-after, stop timeout). After a resign the on-lose hook may run its
    // timeout, then kill-after more until its own SIGKILL; after an involuntary loss it is killed
    // at D - margin (TermWork reads the deadline as the hook runs), and not started past it.
    // Each group stopped (the command's, then on-lose's) may take KILL_WAIT more after its SIGKILL
    // to be gone (a process in uninterruptible sleep) before the stop goes on.
    Duration groupStop = killAfter.plus(ExternalCommandRunner.KILL_WAIT);
    Duration onLoseRuns = hookTimeout.plus(groupStop);
    // A runner that wakes by D - margin kills the command at once (the grace is cut to end there).
    return of(
        session,
        election,
        onLose ? groupStop.plus(onLoseRuns) : groupStop,
        election.safetyMargin(),
        true);
  }

  /**
   * The figures both kinds share, with the two that differ: the graceful hand-over, and how long
   * before D a frozen process must wake for its work to stop in time ({@code wakeBy}). The last
   * acknowledged renewal may have gone out one interval before the freeze.
   */
  private static TimingBudget of(
      SessionOptions session,
      ElectionOptions election,
      Duration gracefulHandover,
      Duration wakeBy,
      boolean runner) {
    RenewalBudget renewal = renewal(session, election);
    Duration ttl = session.ttl();
    Duration lossLead = election.lossLead();
    return new TimingBudget(
        ttl,
        lossLead,
        renewal.interval(),
        renewal.attemptTimeout(),
        riddenOut(ttl, lossLead, renewal),
        ttl.plus(EXPIRY_SCAN),
        gracefulHandover,
        election.safetyMargin().negated(),
        ttl.minus(renewal.interval()).minus(wakeBy),
        runner);
  }

  /**
   * W minus the renewal interval minus an attempt: an outage may begin just before a renewal is
   * due, and after it the answer may have to come from an attempt sent up to an attempt timeout
   * later (the one in flight lost). Never negative.
   */
  private static Duration riddenOut(Duration ttl, Duration lossLead, RenewalBudget renewal) {
    Duration ridden = ttl.minus(lossLead).minus(renewal.interval()).minus(renewal.attemptTimeout());
    return ridden.isNegative() ? Duration.ZERO : ridden;
  }

  /** Whether an etcd raft leader change as long as {@link #RAFT_LEADER_CHANGE} costs no term. */
  public boolean ridesOutRaftLeaderChange() {
    return outageRiddenOut.compareTo(RAFT_LEADER_CHANGE) >= 0;
  }

  /**
   * What a raft leader change of etcd does to a term under this budget, in words: nothing, or that
   * one longer than {@link #outageRiddenOut} ends it.
   */
  public String raftLeaderChange() {
    if (ridesOutRaftLeaderChange()) {
      return "an etcd raft leader change costs no term (etcd's take up to "
          + f(RAFT_LEADER_CHANGE)
          + " with its default election timeout)";
    }
    return "a raft leader change that takes longer than "
        + f(outageRiddenOut)
        + " ends the term (etcd's take up to "
        + f(RAFT_LEADER_CHANGE)
        + " with its default election timeout: raise the ttl, or shorten "
        + (runner ? "kill-after" : "the stop timeout")
        + ")";
  }

  /** The window a renewal has: TTL minus the loss lead. */
  public Duration window() {
    return ttl.minus(lossLead);
  }

  /**
   * How long after a renewal attempt that failed fast (no connection, no raft leader) the next goes
   * out; after one that timed out, the next goes at once ({@link RenewalBudget#afterFastFailure}).
   */
  public Duration retryAfterFastFailure() {
    return new RenewalBudget(renewInterval, attemptTimeout).afterFastFailure();
  }

  /** The figures in one line, for a log. */
  public String summary() {
    return "ttl "
        + f(ttl)
        + " asked for, leadership dropped "
        + f(lossLead)
        + " before the lease deadline D, renewed every "
        + f(renewInterval)
        + " (attempts up to "
        + f(attemptTimeout)
        + "); rides out etcd outages up to "
        + f(outageRiddenOut)
        + "; "
        + raftLeaderChange()
        + "; crash fail-over up to "
        + f(crashFailover)
        + "; graceful hand-over up to "
        + f(gracefulHandover)
        + (runner
            ? " (with "
                + f(ExternalCommandRunner.KILL_WAIT)
                + " per process group for it to be gone after a SIGKILL)"
            : " per lose hook")
        + "; "
        + (runner
            ? "on-lose may run until " + relative(loseHookEnd) + " (a successor may start at D)"
            : "a lose hook still running at "
                + relative(loseHookEnd)
                + " is interrupted and not waited for (one that ignores interrupts runs on; a"
                + " successor may start at D)")
        + "; a pause over "
        + f(fencedOnlyPause)
        + " is fenced only";
  }

  /** {@code D+34s}, {@code D-500ms}, {@code D}. */
  public static String relative(Duration toDeadline) {
    if (toDeadline.isZero()) {
      return "D";
    }
    return toDeadline.isNegative() ? "D-" + f(toDeadline.negated()) : "D+" + f(toDeadline);
  }

  private static RenewalBudget renewal(SessionOptions session, ElectionOptions election) {
    return RenewalBudget.of(
        session.ttl(),
        election.stopTimeout(),
        election.safetyMargin(),
        session.renewInterval(),
        session.timeout());
  }

  private static String f(Duration duration) {
    return Durations.format(duration);
  }
}
