package dev.conch.bench;

import dev.conch.Election;
import dev.conch.ElectionEvent;
import dev.conch.ElectionOptions;
import dev.conch.Holder;
import dev.conch.Leadership;
import dev.conch.LeadershipHandler;
import dev.conch.LossReason;
import dev.conch.etcd.EtcdClients;
import dev.conch.etcd.EtcdSession;
import dev.conch.etcd.SessionOptions;
import dev.conch.test.EtcdCluster;
import dev.conch.test.Etcdctl;
import dev.conch.test.TcpProxy;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Measures hand-over against a real single-member etcd on loopback: how long after a resign the
 * next candidate leads, and after a named transfer the target, and how long after the leader is cut
 * off (a partition, the same for the follower as a crash) the leader stops and the follower leads.
 * Run it with
 *
 * <pre>
 * mvn -q -pl conch-core test-compile exec:java -Dexec.classpathScope=test \
 *     -Dexec.mainClass=dev.conch.bench.HandoverBenchmark [-Dexec.args="rounds"]
 * </pre>
 *
 * Figures go to docs/benchmarks.md; they are measurements, never assertions of a test.
 */
public final class HandoverBenchmark {

  private HandoverBenchmark() {}

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 50;
    try (EtcdCluster cluster = EtcdCluster.start(1)) {
      etcdctl(cluster, rounds);
      graceful(cluster, rounds);
      named(cluster, rounds, 2);
      named(cluster, rounds, 3);
      for (int ttl : new int[] {2, 5, 10}) {
        cutOff(cluster, ttl, Math.max(3, rounds / 10));
      }
    }
    System.exit(0);
  }

  /**
   * The peer, in the same run: {@code etcdctl elect} hand-over, from the holder's SIGINT (it
   * resigns) to the moment the waiting one prints that it leads.
   */
  private static void etcdctl(EtcdCluster cluster, int rounds) throws Exception {
    List<Long> nanos = new ArrayList<>();
    String name = "/bench/etcdctl-elect";
    Etcdctl.Background holder = Etcdctl.start(cluster.endpoints(), "elect", name, "p0");
    holder.awaitLine(line -> line.equals("p0"), Duration.ofSeconds(30));
    for (int i = 0; i < rounds + 5; i++) {
      String next = "p" + (i + 1);
      Etcdctl.Background waiting = Etcdctl.start(cluster.endpoints(), "elect", name, next);
      // Queued once its key exists: two candidates under the election name.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (Etcdctl.run(
                  cluster.endpoints(),
                  Duration.ofSeconds(10),
                  "get",
                  "--prefix",
                  "--keys-only",
                  name + "/")
              .stdout()
              .lines()
              .filter(line -> !line.isBlank())
              .count()
          < 2) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("etcdctl elect did not queue");
        }
      }
      long start = System.nanoTime();
      holder.interrupt();
      waiting.awaitLine(line -> line.equals(next), Duration.ofSeconds(30));
      long led = System.nanoTime();
      if (i >= 5) {
        nanos.add(led - start);
      }
      holder.awaitExit(Duration.ofSeconds(10));
      holder.close();
      holder = waiting;
    }
    holder.interrupt();
    holder.close();
    report("etcdctl elect hand-over (SIGINT -> next prints), peer", nanos);
  }

  /** Resign: from the resign call to the follower's Leading event. */
  private static void graceful(EtcdCluster cluster, int rounds) throws Exception {
    List<Long> nanos = new ArrayList<>();
    try (Client ca = client(cluster.endpoints());
        Client cb = client(cluster.endpoints());
        EtcdSession sa = EtcdSession.open(ca, options(10));
        EtcdSession sb = EtcdSession.open(cb, options(10))) {
      Candidate a = new Candidate(sa.election(ElectionOptions.forOffice("bench-graceful")));
      Candidate b = new Candidate(sb.election(ElectionOptions.forOffice("bench-graceful")));
      a.election.start();
      a.awaitLeading();
      b.election.start();
      for (int i = 0; i < rounds + 5; i++) {
        Candidate leader = a.election.isLeader() ? a : b;
        Candidate next = leader == a ? b : a;
        while (next.election.state() != dev.conch.State.FOLLOWING) {
          Thread.onSpinWait();
        }
        next.leading.clear();
        long start = System.nanoTime();
        leader.election.resign();
        long led = next.awaitLeading();
        if (i >= 5) { // the first rounds warm the JIT up
          nanos.add(led - start);
        }
        leader.election.start();
      }
    }
    report("graceful hand-over (resign -> next leads), ttl 10s", nanos);
  }

  /**
   * Named hand-over, in the same run as the resign: from {@code transfer(id)} to the target's
   * Leading event, the target being the last of {@code size} candidates in line, so that {@code
   * size - 2} stand between (their keys go in the same transaction as the leader's).
   */
  private static void named(EtcdCluster cluster, int rounds, int size) throws Exception {
    List<Long> nanos = new ArrayList<>();
    String office = "bench-named-" + size;
    List<AutoCloseable> open = new ArrayList<>();
    try {
      Map<String, Candidate> byId = new HashMap<>();
      for (int i = 0; i < size; i++) {
        Client client = client(cluster.endpoints());
        open.add(client);
        EtcdSession session = EtcdSession.open(client, options(10));
        open.add(0, session);
        String id = "n" + i;
        Candidate candidate =
            new Candidate(
                session.election(ElectionOptions.builder(office).candidateId(id).build()));
        open.add(0, candidate.election);
        byId.put(id, candidate);
        candidate.election.start();
        if (i == 0) {
          candidate.awaitLeading();
        }
      }
      Client reader = client(cluster.endpoints());
      open.add(reader);
      for (int i = 0; i < rounds + 5; i++) {
        List<String> line = line(reader, office, size);
        Candidate leader = byId.get(line.get(0));
        String targetId = line.get(size - 1);
        Candidate target = byId.get(targetId);
        while (!leader.election.isLeader()
            || target.election.state() != dev.conch.State.FOLLOWING) {
          Thread.onSpinWait();
        }
        target.leading.clear();
        long start = System.nanoTime();
        leader.election.transfer(targetId);
        long led = target.awaitLeading();
        if (i >= 5) {
          nanos.add(led - start);
        }
      }
    } finally {
      for (AutoCloseable closeable : open) {
        closeable.close();
      }
    }
    report("named transfer, " + (size - 2) + " between (transfer(id) -> target leads)", nanos);
  }

  /** The candidate ids of {@code office} in line, once all {@code size} are in it again. */
  private static List<String> line(Client reader, String office, int size) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      List<String> ids = new ArrayList<>();
      for (KeyValue kv :
          reader
              .getKVClient()
              .get(
                  ByteSequence.from("/conch/v1/elect/" + office + "/", StandardCharsets.UTF_8),
                  GetOption.builder()
                      .isPrefix(true)
                      .withSortField(GetOption.SortTarget.CREATE)
                      .withSortOrder(GetOption.SortOrder.ASCEND)
                      .build())
              .get(10, TimeUnit.SECONDS)
              .getKvs()) {
        ids.add(
            Holder.parse(
                    office,
                    kv.getValue().toString(StandardCharsets.UTF_8),
                    kv.getCreateRevision(),
                    kv.getLease())
                .id());
      }
      if (ids.size() == size) {
        return ids;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the line of " + office + " is " + ids);
      }
      Thread.sleep(1); // between rounds, not timed: the passed candidates queue again
    }
  }

  /**
   * Cut-off: from the black-hole to the leader's Lost event and to the follower's Leading event.
   */
  private static void cutOff(EtcdCluster cluster, int ttl, int rounds) throws Exception {
    List<Long> stopped = new ArrayList<>();
    List<Long> succeeded = new ArrayList<>();
    for (int i = 0; i < rounds; i++) {
      String office = "bench-cut-" + ttl + "-" + i;
      try (TcpProxy proxy = TcpProxy.start("127.0.0.1", cluster.member(0).clientPort());
          Client ca = client(proxy.endpoint());
          Client cb = client(cluster.endpoints());
          EtcdSession sa = EtcdSession.open(ca, options(ttl).withTimeout(Duration.ofMillis(500)));
          EtcdSession sb = EtcdSession.open(cb, options(ttl))) {
        ElectionOptions electionOptions =
            ElectionOptions.builder(office)
                .stopTimeout(Duration.ofMillis(ttl == 2 ? 300 : 1000))
                .safetyMargin(Duration.ofMillis(ttl == 2 ? 200 : 500))
                .build();
        Candidate a = new Candidate(sa.election(electionOptions));
        Candidate b = new Candidate(sb.election(electionOptions));
        a.election.start();
        a.awaitLeading();
        b.election.start();
        while (b.election.state() != dev.conch.State.FOLLOWING) {
          Thread.onSpinWait();
        }
        long start = System.nanoTime();
        proxy.blackhole();
        long lost = a.awaitLost();
        long led = b.awaitLeading();
        stopped.add(lost - start);
        succeeded.add(led - start);
        if (led < lost) {
          System.out.println("OVERLAP in round " + i + ": follower led before the leader stopped");
        }
      }
    }
    report("cut-off, ttl " + ttl + "s: leader stops leading", stopped);
    report("cut-off, ttl " + ttl + "s: follower leads", succeeded);
  }

  private static SessionOptions options(int ttlSeconds) {
    return SessionOptions.defaults().withTtl(Duration.ofSeconds(ttlSeconds));
  }

  private static Client client(String endpoints) {
    return EtcdClients.builder(EtcdClients.parseEndpoints(endpoints), Duration.ofSeconds(2))
        .build();
  }

  private static void report(String what, List<Long> nanos) {
    List<Long> sorted = new ArrayList<>(nanos);
    Collections.sort(sorted);
    System.out.printf(
        "%-60s n=%-3d p50=%8.1f ms  p90=%8.1f ms  max=%8.1f ms%n",
        what,
        sorted.size(),
        ms(sorted.get(sorted.size() / 2)),
        ms(sorted.get((int) Math.min(sorted.size() - 1, Math.ceil(sorted.size() * 0.9) - 1))),
        ms(sorted.get(sorted.size() - 1)));
  }

  private static double ms(long nanos) {
    return nanos / 1e6;
  }

  /** An election with the times of its Leading and Lost events. */
  private static final class Candidate {
    final Election election;
    final BlockingQueue<Long> leading = new ArrayBlockingQueue<>(64);
    final BlockingQueue<Long> lost = new ArrayBlockingQueue<>(64);

    Candidate(Election election) {
      this.election = election;
      election.addListener(
          event -> {
            if (event instanceof ElectionEvent.Leading) {
              leading.offer(System.nanoTime());
            }
          });
      // The work stops in the lose hook: that is the moment that counts, not the event after it.
      election.addHandler(
          new LeadershipHandler() {
            @Override
            public void lost(Leadership leadership, LossReason reason) {
              lost.offer(System.nanoTime());
            }
          });
    }

    long awaitLeading() throws InterruptedException {
      return take(leading, "leading");
    }

    long awaitLost() throws InterruptedException {
      return take(lost, "lost");
    }

    private static long take(BlockingQueue<Long> queue, String what) throws InterruptedException {
      Long at = queue.poll(60, TimeUnit.SECONDS);
      if (at == null) {
        throw new IllegalStateException("no " + what + " event within 60 s");
      }
      return at;
    }
  }
}
