package dev.conch.chaos;

import dev.conch.process.ExternalCommandRunner;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

/**
 * What a soak runs: etcd members, candidates, for how long, with which TTL and kill-after, which
 * faults, from which random seed, the {@code conch} launcher, and how many of the candidates are
 * instances of the sample app (Spring's {@code ExternalCommandRunner}) rather than {@code conch
 * elect}.
 *
 * @param specDefaults whether the supervisors run with their own defaults (TTL 15 s, kill-after 5
 *     s): then {@code ttl} and {@code killAfter} are not passed to them, and only describe those
 *     defaults to the report
 * @param stall how long the benign faults {@link Fault#STALL_RAFT_LEADER} and {@link
 *     Fault#STALL_CLIENT_MEMBER} keep a member stopped
 * @param database whether the commands write through the fence into a PostgreSQL started by the
 *     soak ({@link SoakDatabase}); on unless {@code --no-db}
 * @param priorities whether the {@code conch elect} supervisors campaign with priorities ({@code
 *     --priorities}): the one of index i with {@code --priority i} and {@code --min-tenure} {@link
 *     #PRIORITY_TENURE}, so that the live one of highest priority is handed the office by a named
 *     hand-over, under the faults, whenever it comes back
 */
record SoakOptions(
    int members,
    int candidates,
    Duration duration,
    Duration ttl,
    Duration killAfter,
    long seed,
    Set<Fault> faults,
    Path launcher,
    int apps,
    Path sampleApp,
    boolean specDefaults,
    Duration stall,
    boolean database,
    boolean priorities) {

  /**
   * The minimum tenure of the supervisors with {@code --priorities}: short, so that moves happen.
   */
  static final Duration PRIORITY_TENURE = Duration.ofSeconds(2);

  /** The TTL of {@code conch elect} when none is given (and of a Spring app with a runner). */
  static final Duration DEFAULT_TTL = ExternalCommandRunner.DEFAULT_TTL;

  /** The kill-after of {@code conch elect} when none is given. */
  static final Duration DEFAULT_KILL_AFTER = ExternalCommandRunner.DEFAULT_KILL_AFTER;

  /** How long a benign stall stops a member: an fsync hiccup, a short GC pause. */
  static final Duration DEFAULT_STALL = Duration.ofMillis(1500);

  /**
   * A soak with the given TTL and kill-after passed to every supervisor, the default stall, the
   * fence's database and no priorities.
   */
  SoakOptions(
      int members,
      int candidates,
      Duration duration,
      Duration ttl,
      Duration killAfter,
      long seed,
      Set<Fault> faults,
      Path launcher,
      int apps,
      Path sampleApp) {
    this(
        members,
        candidates,
        duration,
        ttl,
        killAfter,
        seed,
        faults,
        launcher,
        apps,
        sampleApp,
        false,
        DEFAULT_STALL,
        true,
        false);
  }

  /**
   * The steadiness soak: supervisors with their defaults (nothing passed but the endpoints) and
   * only {@linkplain Fault#benign() benign} faults, so that every lost term is a needless one.
   */
  static SoakOptions benign(
      int members,
      int candidates,
      Duration duration,
      long seed,
      Path launcher,
      int apps,
      Path sampleApp) {
    return new SoakOptions(
        members,
        candidates,
        duration,
        DEFAULT_TTL,
        DEFAULT_KILL_AFTER,
        seed,
        benignFaults(members),
        launcher,
        apps,
        sampleApp,
        true,
        DEFAULT_STALL,
        true,
        false);
  }

  /** Whether every fault of this soak is benign: then every lost term is needless. */
  boolean onlyBenign() {
    return faults.stream().allMatch(Fault::benign);
  }

  /** The faults the soak injects. */
  enum Fault {
    /** SIGKILL a supervisor, then start a new one. */
    KILL_SUPERVISOR,
    /** SIGSTOP the leader's supervisor past its TTL, then SIGCONT: the one allowed overlap. */
    FREEZE_SUPERVISOR,
    /** Black-hole every connection of the leader's supervisor, then restore them. */
    PARTITION,
    /** SIGSTOP an etcd member, then SIGCONT. */
    PAUSE_MEMBER,
    /** Stop an etcd member, then start it again. */
    RESTART_MEMBER,
    /** SIGKILL one member of three, then start it again. */
    KILL_MEMBER,
    /** Stop two members of three, then start them again. */
    LOSE_QUORUM,
    /** Benign: SIGSTOP the raft leader for the stall time (1.5 s), then SIGCONT. */
    STALL_RAFT_LEADER,
    /**
     * Benign: SIGSTOP for the stall time the member that carried most of the leading supervisor's
     * traffic since the previous fault, then SIGCONT.
     */
    STALL_CLIENT_MEMBER,
    /** Benign: SIGKILL the raft leader of three members and start it again at once. */
    KILL_RAFT_LEADER;

    boolean needsThreeMembers() {
      return this == KILL_MEMBER || this == LOSE_QUORUM || this == KILL_RAFT_LEADER;
    }

    /**
     * Whether a leader should keep its term through this fault: a short stall of one member or the
     * loss of the raft leader, which a healthy cluster recovers from within a second or two.
     */
    boolean benign() {
      return this == STALL_RAFT_LEADER || this == STALL_CLIENT_MEMBER || this == KILL_RAFT_LEADER;
    }
  }

  /** Every disruptive (not benign) fault that fits {@code members}: the default soak's mix. */
  static Set<Fault> allFaults(int members) {
    Set<Fault> faults = EnumSet.allOf(Fault.class);
    faults.removeIf(f -> f.benign() || (members < 3 && f.needsThreeMembers()));
    return faults;
  }

  /** Every benign fault that fits {@code members}: the steadiness soak's mix. */
  static Set<Fault> benignFaults(int members) {
    Set<Fault> faults = EnumSet.allOf(Fault.class);
    faults.removeIf(f -> !f.benign() || (members < 3 && f.needsThreeMembers()));
    return faults;
  }
}
