package dev.conch.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/** Plans the members of an {@link EtcdCluster}, starts them, and waits until they are healthy. */
final class ClusterLauncher {

  /** Attempts with fresh ports before a port clash is reported. */
  private static final int PORT_ATTEMPTS = 3;

  private ClusterLauncher() {}

  static void awaitAllHealthy(List<EtcdMember> members, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (EtcdMember member : members) {
      if (!member.isRunning()) {
        throw member.failure("is not running");
      }
    }
    // Poll all members in each round, so one that died (say, on a port clash) fails the wait at
    // once instead of after the others have timed out waiting for a quorum.
    Set<EtcdMember> pending = new HashSet<>(members);
    while (true) {
      pending.removeIf(EtcdMember::probeHealthy);
      if (pending.isEmpty()) {
        return;
      }
      if (Processes.remainingMillis(deadline) <= 0 || !Processes.pause(50)) {
        EtcdMember first = pending.stream().min(Comparator.comparing(EtcdMember::name)).get();
        throw first.failure("not healthy within " + timeout);
      }
    }
  }

  static EtcdCluster launch(EtcdCluster.Builder options) {
    Path etcd = Processes.binary("ETCD_BIN", "etcd", "etcd-server");
    Path root;
    try {
      root = Files.createTempDirectory("conch-etcd-");
    } catch (IOException e) {
      throw new UncheckedIOException("Could not create a temp dir for etcd", e);
    }
    Processes.deleteAtExit(root);
    try {
      for (int attempt = 1; ; attempt++) {
        List<EtcdMember> members = plan(etcd, root, options);
        try {
          members.forEach(EtcdMember::launch);
          awaitAllHealthy(members, options.startTimeout);
          EtcdCluster cluster = new EtcdCluster(root, members);
          cluster.leaderIndex(); // learns the member ids while every member answers
          return cluster;
        } catch (RuntimeException e) {
          members.forEach(EtcdMember::kill);
          // Free ports are only probed, never held, so another process may take one before etcd
          // binds it; the whole cluster is replanned because every member lists every peer port.
          if (!(e instanceof EtcdMember.PortClashException) || attempt == PORT_ATTEMPTS) {
            throw e;
          }
          members.forEach(member -> Processes.deleteRecursively(member.dataDir()));
        }
      }
    } catch (RuntimeException e) {
      Processes.deleteRecursively(root);
      Processes.forgetTempDir(root);
      throw e;
    }
  }

  private static List<EtcdMember> plan(Path etcd, Path root, EtcdCluster.Builder options) {
    Set<Integer> taken = new HashSet<>();
    List<String> names = new ArrayList<>();
    List<int[]> ports = new ArrayList<>();
    for (int i = 0; i < options.members; i++) {
      names.add("conch-" + i);
      ports.add(new int[] {Processes.freePort(taken), Processes.freePort(taken)});
    }
    String initialCluster =
        IntStream.range(0, options.members)
            .mapToObj(i -> names.get(i) + "=http://127.0.0.1:" + ports.get(i)[1])
            .collect(Collectors.joining(","));
    // A fresh token keeps members of different clusters from ever joining each other.
    String token = "conch-test-" + UUID.randomUUID();
    List<EtcdMember> members = new ArrayList<>();
    for (int i = 0; i < options.members; i++) {
      String client = "http://127.0.0.1:" + ports.get(i)[0];
      String peer = "http://127.0.0.1:" + ports.get(i)[1];
      List<String> command = new ArrayList<>();
      command.add(etcd.toString());
      command.addAll(
          List.of(
              "--name=" + names.get(i),
              "--data-dir=data",
              "--logger=zap",
              "--listen-client-urls=" + client,
              "--advertise-client-urls=" + client,
              "--listen-peer-urls=" + peer,
              "--initial-advertise-peer-urls=" + peer,
              "--initial-cluster=" + initialCluster,
              "--initial-cluster-token=" + token,
              "--initial-cluster-state=new"));
      command.addAll(options.extraArgs);
      command.addAll(options.memberArgs.getOrDefault(i, List.of()));
      members.add(
          new EtcdMember(
              names.get(i),
              ports.get(i)[0],
              ports.get(i)[1],
              root.resolve(names.get(i)),
              command,
              options.members,
              options.startTimeout));
    }
    return members;
  }
}
