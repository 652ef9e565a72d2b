package dev.conch.test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A real etcd cluster of one or three members, started from the {@code etcd} binary on free
 * loopback ports in a temporary directory, for integration tests.
 *
 * <pre>{@code
 * try (EtcdCluster etcd = EtcdCluster.start(3)) {
 *   String endpoints = etcd.endpoints();
 *   etcd.member(etcd.leaderIndex()).kill();
 * }
 * }</pre>
 *
 * <p>The binary is {@code $ETCD_BIN}, else {@code etcd} on the PATH, else {@code /usr/bin/etcd}
 * (Debian package {@code etcd-server}). Members run without the caller's {@code ETCD*} environment
 * variables, which etcd would otherwise read as flags; use {@link Builder#extraArgs} instead. Every
 * member process is also killed by a JVM shutdown hook if the test never closes the cluster.
 */
public final class EtcdCluster implements AutoCloseable {

  private static final Duration STATUS_TIMEOUT = Duration.ofSeconds(1);

  private final Path root;
  private final List<EtcdMember> members;
  private final Map<String, Integer> indexByMemberId = new HashMap<>();
  private boolean closed;

  EtcdCluster(Path root, List<EtcdMember> members) {
    this.root = root;
    this.members = List.copyOf(members);
  }

  /**
   * Starts a cluster of {@code members} members and waits until every one is healthy.
   *
   * @param members 1 or 3
   * @throws IllegalArgumentException for any other size
   */
  public static EtcdCluster start(int members) {
    return builder().members(members).build();
  }

  /** A builder for a cluster with options; {@link Builder#build()} starts it. */
  public static Builder builder() {
    return new Builder();
  }

  /** Comma-separated client URLs of all members, as etcdctl and jetcd accept them. */
  public String endpoints() {
    return String.join(",", endpointList());
  }

  /** Client URLs of all members, in member order. */
  public List<String> endpointList() {
    return members.stream().map(EtcdMember::endpoint).toList();
  }

  /** The member at {@code index}, counting from 0. */
  public EtcdMember member(int index) {
    return members.get(index);
  }

  /** All members, in order. */
  public List<EtcdMember> members() {
    return members;
  }

  /** Temporary directory holding every member's data and log; deleted by {@link #close()}. */
  public Path dataDir() {
    return root;
  }

  /**
   * Waits until every member answers {@code /health} with {@code "health":"true"}.
   *
   * @throws IllegalStateException at the deadline, or at once if a member is not running, with the
   *     tail of that member's log
   */
  public void awaitHealthy(Duration timeout) {
    ClusterLauncher.awaitAllHealthy(members, timeout);
  }

  /**
   * Index of the member that is the raft leader, or -1 if no answering member knows of one.
   *
   * <p>Asks each running, unpaused member for its status over the grpc-gateway (at most 1 s each)
   * and trusts the answer with the highest raft term, so a member cut off from the others cannot
   * report a stale leader over a newer one.
   */
  public int leaderIndex() {
    EtcdHttp.Status newest = null;
    for (int i = 0; i < members.size(); i++) {
      Optional<EtcdHttp.Status> status = members.get(i).status(STATUS_TIMEOUT);
      if (status.isPresent()) {
        EtcdHttp.Status s = status.get();
        synchronized (indexByMemberId) {
          indexByMemberId.put(s.memberId(), i);
        }
        if (s.leaderId() != null && (newest == null || s.raftTerm() > newest.raftTerm())) {
          newest = s;
        }
      }
    }
    if (newest == null) {
      return -1;
    }
    synchronized (indexByMemberId) {
      return indexByMemberId.getOrDefault(newest.leaderId(), -1);
    }
  }

  /** Kills every member, waits until each has exited, and deletes the temporary directory. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    // Tests are done with the data, so SIGKILL is enough and quicker than a graceful stop.
    @Nullable RuntimeException failure = null;
    for (EtcdMember member : members) {
      try {
        member.kill();
      } catch (RuntimeException e) {
        failure = addTo(failure, e);
      }
    }
    try {
      Processes.deleteRecursively(root);
      Processes.forgetTempDir(root);
    } catch (RuntimeException e) {
      failure = addTo(failure, e);
    }
    if (failure != null) {
      throw failure;
    }
  }

  @Override
  public String toString() {
    return "EtcdCluster" + members;
  }

  private static RuntimeException addTo(@Nullable RuntimeException first, RuntimeException next) {
    if (first == null) {
      return next;
    }
    first.addSuppressed(next);
    return first;
  }

  /** Options for a cluster; {@link #build()} starts it. Later options will be added here. */
  public static final class Builder {

    int members = 1;
    Duration startTimeout = Duration.ofSeconds(20);
    final List<String> extraArgs = new ArrayList<>();
    final Map<Integer, List<String>> memberArgs = new HashMap<>();

    private Builder() {}

    /**
     * Number of members, 1 (default) or 3.
     *
     * @throws IllegalArgumentException for any other value
     */
    public Builder members(int members) {
      if (members != 1 && members != 3) {
        throw new IllegalArgumentException(
            "An etcd test cluster has 1 or 3 members, not " + members);
      }
      this.members = members;
      return this;
    }

    /** How long to wait for the members to become healthy; default 20 s. */
    public Builder startTimeout(Duration startTimeout) {
      this.startTimeout = startTimeout;
      return this;
    }

    /**
     * Flags added to every member's command line after the ones the cluster sets, e.g. {@code
     * "--auth-token=simple"}; etcd lets a later flag override an earlier one.
     */
    public Builder extraArgs(String... args) {
      this.extraArgs.addAll(Arrays.asList(args));
      return this;
    }

    /** Flags added to the command line of the member at {@code index} only, after all others. */
    public Builder memberArgs(int index, String... args) {
      this.memberArgs.computeIfAbsent(index, i -> new ArrayList<>()).addAll(Arrays.asList(args));
      return this;
    }

    /**
     * Starts the cluster and waits until every member is healthy.
     *
     * @throws IllegalStateException if etcd is missing or a member does not become healthy
     */
    public EtcdCluster build() {
      for (int index : memberArgs.keySet()) {
        if (index < 0 || index >= members) {
          throw new IllegalArgumentException(
              "memberArgs for member " + index + " of a " + members + "-member cluster");
        }
      }
      return ClusterLauncher.launch(this);
    }
  }
}
