package dev.conch.bench;

import dev.conch.Election;
import dev.conch.ElectionEvent;
import dev.conch.ElectionOptions;
import dev.conch.Leadership;
import dev.conch.LeadershipHandler;
import dev.conch.LossReason;
import dev.conch.State;
import dev.conch.etcd.EtcdClients;
import dev.conch.etcd.EtcdSession;
import dev.conch.etcd.SessionOptions;
import dev.conch.test.EtcdCluster;
import io.etcd.jetcd.Client;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/**
 * What conch costs as offices and candidates grow, against a real single-member etcd on loopback:
 *
 * <ul>
 *   <li>offices: one JVM, two sessions (each its own client and lease) and N offices, each session
 *       leading half and following the other half; time to lead all N, then threads, heap after GC
 *       and etcd requests per second while idle (from etcd's own {@code /metrics});
 *   <li>herd: K candidates of one office (K sessions on four clients); the latency of a hand-over
 *       (resign to the next one's {@code Leading}) and the etcd requests it costs.
 * </ul>
 *
 * <pre>
 * mvn -q -pl conch-core test-compile exec:java -Dexec.classpathScope=test \
 *     -Dexec.mainClass=dev.conch.bench.ScaleBenchmark [-Dexec.args="1000 10,50,200"]
 * </pre>
 *
 * Figures go to docs/benchmarks.md; they are measurements, never assertions of a test.
 */
public final class ScaleBenchmark {

  /** How long the idle requests are counted: {@code -Dconch.idleSeconds}, 20 s by default. */
  private static final Duration IDLE = Duration.ofSeconds(Long.getLong("conch.idleSeconds", 20));

  /** Each leader's stop takes 100 ms: a session's close shows whether its offices stop together. */
  private static final LeadershipHandler SLOW_LOSE_HOOK =
      new LeadershipHandler() {
        @Override
        public void lost(Leadership leadership, LossReason reason) throws InterruptedException {
          TimeUnit.MILLISECONDS.sleep(100);
        }
      };

  private ScaleBenchmark() {}

  public static void main(String[] args) throws Exception {
    int offices = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
    String herds = args.length > 1 ? args[1] : "10,50,200";
    try (EtcdCluster cluster = EtcdCluster.start(1)) {
      offices(cluster, offices);
      for (String size : herds.split(",")) {
        herd(cluster, Integer.parseInt(size.trim()));
      }
    }
    System.exit(0);
  }

  /**
   * This JVM's live threads counted by name with numbers and office names taken out ({@code
   * conch-lease-3} and {@code conch-lease} are one family), the largest first.
   */
  private static String threadFamilies() {
    Map<String, Integer> families = new TreeMap<>();
    for (Thread thread : Thread.getAllStackTraces().keySet()) {
      String family = thread.getName().replaceAll("scale-\\d+", "*").replaceAll("[-#]?\\d+", "");
      families.merge(family, 1, Integer::sum);
    }
    StringBuilder out = new StringBuilder();
    families.entrySet().stream()
        .sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
        .forEach(
            e ->
                out.append(out.isEmpty() ? "" : ", ")
                    .append(e.getKey())
                    .append(' ')
                    .append(e.getValue()));
    return out.toString();
  }

  private static void offices(EtcdCluster cluster, int n) throws Exception {
    int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
    try (Client ca = client(cluster);
        Client cb = client(cluster);
        EtcdSession a = EtcdSession.open(ca, SessionOptions.defaults());
        EtcdSession b = EtcdSession.open(cb, SessionOptions.defaults())) {
      List<Election> first = new ArrayList<>();
      CountDownLatch led = new CountDownLatch(n);
      long start = System.nanoTime();
      for (int i = 0; i < n; i++) {
        EtcdSession owner = i % 2 == 0 ? a : b;
        Election election = owner.election(ElectionOptions.forOffice("scale-" + i));
        election.addHandler(SLOW_LOSE_HOOK);
        election.addListener(
            event -> {
              if (event instanceof ElectionEvent.Leading) {
                led.countDown();
              }
            });
        election.start();
        first.add(election);
      }
      if (!led.await(5, TimeUnit.MINUTES)) {
        throw new IllegalStateException("not every office led within 5 minutes");
      }
      long leadAll = System.nanoTime() - start;
      List<Election> second = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        EtcdSession other = i % 2 == 0 ? b : a;
        Election follower = other.election(ElectionOptions.forOffice("scale-" + i));
        follower.start();
        second.add(follower);
      }
      // Every follower campaigns and settles behind its leader before the idle count starts.
      Awaitility.await("every follower settled")
          .atMost(Duration.ofMinutes(5))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> second.stream().allMatch(e -> e.state() == State.FOLLOWING));
      TimeUnit.SECONDS.sleep(2); // then a renewal round, so that no campaign is in the count
      double before = requests(cluster);
      long idleStart = System.nanoTime();
      TimeUnit.NANOSECONDS.sleep(IDLE.toNanos());
      double perSecond = (requests(cluster) - before) / ((System.nanoTime() - idleStart) / 1e9);
      System.gc();
      long heap =
          ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / (1024 * 1024);
      int threads = ManagementFactory.getThreadMXBean().getThreadCount() - threadsBefore;
      double watchers = cluster.member(0).metric("etcd_debugging_mvcc_watcher_total");
      double streams = cluster.member(0).metric("etcd_debugging_mvcc_watch_stream_total");
      System.out.printf(
          "offices: %d offices x 2 sessions in one JVM (each leads %d, follows %d)%n",
          n, n / 2, n / 2);
      System.out.printf("  time to lead all %d: %8.0f ms%n", n, leadAll / 1e6);
      System.out.printf("  threads added: %d, heap after GC: %d MiB%n", threads, heap);
      System.out.printf("  threads by family (all of this JVM's): %s%n", threadFamilies());
      System.out.printf(
          "  etcd requests per second while idle: %.1f (renew interval %s, both sessions)%n",
          perSecond, a.renewalBudget().interval());
      System.out.printf(
          "  etcd watchers: %.0f on %.0f watch streams (etcd's /metrics, both sessions)%n",
          watchers, streams);
      // Closing a session ends its offices together: as long as one leader's 100 ms lose hook, not
      // n / 2 of them.
      long closeStart = System.nanoTime();
      a.close();
      System.out.printf(
          "  closing a session of %d offices (leads %d, follows %d; 100 ms lose hooks): %8.0f ms%n",
          n, n / 2, n / 2, (System.nanoTime() - closeStart) / 1e6);
    }
  }

  private static void herd(EtcdCluster cluster, int candidates) throws Exception {
    String office = "herd-" + candidates;
    List<Client> clients = new ArrayList<>();
    List<EtcdSession> sessions = new ArrayList<>();
    List<Long> latency = new ArrayList<>();
    List<Double> cost = new ArrayList<>();
    try {
      for (int i = 0; i < 4; i++) {
        clients.add(client(cluster));
      }
      List<Election> elections = new ArrayList<>();
      BlockingQueue<Long> leading = new ArrayBlockingQueue<>(candidates * 4);
      for (int i = 0; i < candidates; i++) {
        EtcdSession session = EtcdSession.open(clients.get(i % 4), SessionOptions.defaults());
        sessions.add(session);
        Election election = session.election(ElectionOptions.forOffice(office));
        election.addListener(
            event -> {
              if (event instanceof ElectionEvent.Leading) {
                leading.offer(System.nanoTime());
              }
            });
        election.start();
        elections.add(election);
      }
      take(leading);
      TimeUnit.SECONDS.sleep(3); // every candidate queued
      int rounds = 20;
      for (int round = 0; round < rounds; round++) {
        Election leader = elections.stream().filter(Election::isLeader).findFirst().orElseThrow();
        double before = requests(cluster);
        long start = System.nanoTime();
        leader.resign();
        long led = take(leading);
        TimeUnit.MILLISECONDS.sleep(200); // let the hand-over's requests land before counting
        latency.add(led - start);
        cost.add(requests(cluster) - before);
        leader.start(); // back into the queue, at its end
      }
      Collections.sort(latency);
      Collections.sort(cost);
      System.out.printf(
          "herd: %3d candidates, hand-over p50 %6.1f ms p90 %6.1f ms, etcd requests per"
              + " hand-over p50 %.0f (incl. renewals in the window)%n",
          candidates,
          latency.get(rounds / 2) / 1e6,
          latency.get(rounds * 9 / 10) / 1e6,
          cost.get(rounds / 2));
    } finally {
      for (EtcdSession session : sessions) {
        session.close();
      }
      for (Client client : clients) {
        client.close();
      }
    }
  }

  private static long take(BlockingQueue<Long> queue) throws InterruptedException {
    Long at = queue.poll(60, TimeUnit.SECONDS);
    if (at == null) {
      throw new IllegalStateException("no leader within 60 s");
    }
    return at;
  }

  /** The gRPC requests etcd has handled so far, summed over every method. */
  private static double requests(EtcdCluster cluster) {
    return cluster.member(0).metric("grpc_server_handled_total");
  }

  private static Client client(EtcdCluster cluster) {
    return EtcdClients.builder(
            EtcdClients.parseEndpoints(cluster.endpoints()), Duration.ofSeconds(5))
        .build();
  }
}
