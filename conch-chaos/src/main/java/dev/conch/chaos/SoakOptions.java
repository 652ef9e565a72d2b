package dev.conch.chaos;

import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

/**
 * What a soak runs: etcd members, candidates, for how long, with which TTL and kill-after, which
 * faults, from which random seed, the {@code conch} launcher, and how many of the candidates are
 * instances of the sample app (Spring's {@code ExternalCommandRunner}) rather than {@code conch
 * elect}.
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
    Path sampleApp) {

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
    LOSE_QUORUM;

    boolean needsThreeMembers() {
      return this == KILL_MEMBER || this == LOSE_QUORUM;
    }
  }

  /** Every fault that fits {@code members}. */
  static Set<Fault> allFaults(int members) {
    Set<Fault> faults = EnumSet.allOf(Fault.class);
    if (members < 3) {
      faults.removeIf(Fault::needsThreeMembers);
    }
    return faults;
  }
}
