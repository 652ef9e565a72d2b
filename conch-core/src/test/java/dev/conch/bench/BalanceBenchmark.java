package dev.conch.bench;

import dev.conch.Durations;
import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.GroupOptions;
import dev.conch.OfficeGroup;
import dev.conch.etcd.EtcdClients;
import dev.conch.etcd.EtcdSession;
import dev.conch.etcd.SessionOptions;
import dev.conch.test.EtcdCluster;
import io.etcd.jetcd.Client;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * How a group shares its offices, against a real single-member etcd on loopback, with the default
 * delay (5 s):
 *
 * <ul>
 *   <li>rolling: 3 members × 12 offices started 3 s apart: the time from the last start to 4 / 4 /
 *       4 and the moves; one member stopped: to 6 / 6; back: to 4 / 4 / 4;
 *   <li>large: M members (10) × N offices (1000) in one JVM, all started at once: the time to a
 *       fair share (nobody more than one above another), the moves, etcd requests per second during
 *       the rebalance and while idle (from etcd's own {@code /metrics}), threads.
 * </ul>
 *
 * <pre>
 * mvn -q -pl conch-core test-compile exec:java -Dexec.classpathScope=test \
 *     -Dexec.mainClass=dev.conch.bench.BalanceBenchmark [-Dexec.args="N [M [large]]"]
 * </pre>
 *
 * Figures go to docs/benchmarks.md; they are measurements, never assertions of a test.
 */
public final class BalanceBenchmark {

  private static final Duration IDLE = Duration.ofSeconds(20);
  private static final long LIMIT = TimeUnit.MINUTES.toNanos(10);

  private BalanceBenchmark() {}

  public static void main(String[] args) throws Exception {
    int offices = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
    int size = args.length > 1 ? Integer.parseInt(args[1]) : 10;
    boolean largeOnly = args.length > 2 && args[2].equals("large");
    try (EtcdCluster cluster = EtcdCluster.start(1)) {
      if (!largeOnly) {
        rolling(cluster);
      }
      large(cluster, size, offices);
    }
    System.exit(0);
  }

  /** One member: its client, session, group and elections, and the moves it made. */
  private static final class Member implements AutoCloseable {
    final Client client;
    final EtcdSession session;
    final OfficeGroup group;
    final List<Election> elections = new ArrayList<>();
    final AtomicInteger moves;

    Member(EtcdCluster cluster, String id, String group, int offices, AtomicInteger moves) {
      this.client =
          EtcdClients.builder(
                  EtcdClients.parseEndpoints(cluster.endpoints()), Duration.ofSeconds(5))
              .build();
      this.session = EtcdSession.open(client, SessionOptions.defaults());
      this.group = session.group(GroupOptions.builder(group).candidateId(id).build());
      this.moves = moves;
      this.group.addListener(move -> moves.incrementAndGet());
      for (int i = 0; i < offices; i++) {
        Election election =
            session.election(ElectionOptions.builder(group + "-" + i).candidateId(id).build());
        this.group.add(election);
        elections.add(election);
      }
    }

    void start() {
      elections.forEach(Election::start);
    }

    int leads() {
      return (int) elections.stream().filter(Election::isLeader).count();
    }

    @Override
    public void close() {
      session.close();
      client.close();
    }
  }

  private static void rolling(EtcdCluster cluster) throws Exception {
    AtomicInteger moves = new AtomicInteger();
    List<Member> members = new ArrayList<>();
    try {
      for (String id : List.of("a", "b", "c")) {
        if (!members.isEmpty()) {
          TimeUnit.SECONDS.sleep(3);
        }
        Member member = new Member(cluster, id, "rolling", 12, moves);
        member.start();
        members.add(member);
      }
      List<Integer> atLastStart = shares(members);
      long took = until(() -> shares(members).equals(List.of(4, 4, 4)));
      System.out.printf(
          "balance rolling: 3 members x 12 offices, started 3 s apart (delay %s), shares at the"
              + " last start %s%n",
          Durations.format(GroupOptions.DEFAULT_DELAY), atLastStart);
      System.out.printf(
          "  time to 4/4/4 after the last start: %6.0f ms, moves %d%n", took / 1e6, moves.get());
      moves.set(0);
      Member stopped = members.remove(2);
      stopped.close();
      long stop = until(() -> shares(members).equals(List.of(6, 6)));
      System.out.printf(
          "  time to 6/6 after one stopped:      %6.0f ms, moves %d%n", stop / 1e6, moves.get());
      moves.set(0);
      Member back = new Member(cluster, "c", "rolling", 12, moves);
      back.start();
      members.add(back);
      long again = until(() -> shares(members).equals(List.of(4, 4, 4)));
      System.out.printf(
          "  time to 4/4/4 after it came back:   %6.0f ms, moves %d%n", again / 1e6, moves.get());
    } finally {
      members.forEach(Member::close);
    }
  }

  private static void large(EtcdCluster cluster, int size, int offices) throws Exception {
    int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
    AtomicInteger moves = new AtomicInteger();
    List<Member> members = new ArrayList<>();
    try {
      for (int i = 0; i < size; i++) {
        members.add(new Member(cluster, "m" + i, "large", offices, moves));
      }
      long start = System.nanoTime();
      members.forEach(Member::start);
      until(() -> shares(members).stream().mapToInt(Integer::intValue).sum() == offices);
      List<Integer> first = shares(members);
      long allLed = System.nanoTime() - start;
      double requestsBefore = requests(cluster);
      long rebalanceStart = System.nanoTime();
      until(() -> fair(shares(members), offices));
      long rebalance = System.nanoTime() - rebalanceStart;
      double during = (requests(cluster) - requestsBefore) / (rebalance / 1e9);
      TimeUnit.SECONDS.sleep(5); // the last counts written, the last watch events applied
      double before = requests(cluster);
      long groupBefore = groupRequests(members);
      long idleStart = System.nanoTime();
      TimeUnit.NANOSECONDS.sleep(IDLE.toNanos());
      double seconds = (System.nanoTime() - idleStart) / 1e9;
      double idle = (requests(cluster) - before) / seconds;
      double groupIdle = (groupRequests(members) - groupBefore) / seconds;
      before = requests(cluster);
      idleStart = System.nanoTime();
      TimeUnit.NANOSECONDS.sleep(IDLE.toNanos());
      double idleAgain = (requests(cluster) - before) / ((System.nanoTime() - idleStart) / 1e9);
      // The same idle spell without the groups: what is left is the elections' own cost.
      members.forEach(m -> m.group.close());
      TimeUnit.SECONDS.sleep(2);
      before = requests(cluster);
      idleStart = System.nanoTime();
      TimeUnit.NANOSECONDS.sleep(IDLE.toNanos());
      double without = (requests(cluster) - before) / ((System.nanoTime() - idleStart) / 1e9);
      int threads = ManagementFactory.getThreadMXBean().getThreadCount() - threadsBefore;
      System.out.printf(
          "balance large: %d members x %d offices in one JVM, all started at once%n",
          size, offices);
      System.out.printf("  time to lead all: %8.0f ms, shares then %s%n", allLed / 1e6, first);
      System.out.printf(
          "  time to a fair share after that: %8.0f ms, moves %d (at least %d from the shares"
              + " when all were led), shares %s%n",
          rebalance / 1e6, moves.get(), fewestMoves(first), shares(members));
      System.out.printf(
          "  etcd requests per second: %.1f during the rebalance; idle %.1f, 20 s later %.1f, then"
              + " %.1f with the groups closed (all %d sessions); the groups' own while idle: %.2f%n",
          during, idle, idleAgain, without, size, groupIdle);
      System.out.printf("  threads added: %d%n", threads);
    } finally {
      members.forEach(Member::close);
    }
  }

  private static long groupRequests(List<Member> members) {
    return members.stream().mapToLong(m -> m.session.groupRequests()).sum();
  }

  /** The fewest hand-overs from {@code shares} to a fair share (the excess above the floor). */
  private static int fewestMoves(List<Integer> shares) {
    int total = shares.stream().mapToInt(Integer::intValue).sum();
    int floor = total / shares.size();
    int extra = total - floor * shares.size();
    int moves = 0;
    List<Integer> most = shares.stream().sorted(Comparator.reverseOrder()).toList();
    for (int share : most) {
      moves += Math.max(0, share - floor - (extra-- > 0 ? 1 : 0));
    }
    return moves;
  }

  private static boolean fair(List<Integer> shares, int offices) {
    int sum = shares.stream().mapToInt(Integer::intValue).sum();
    int max = shares.stream().mapToInt(Integer::intValue).max().orElse(0);
    int min = shares.stream().mapToInt(Integer::intValue).min().orElse(0);
    return sum == offices && max - min <= 1;
  }

  private static List<Integer> shares(List<Member> members) {
    return members.stream().map(Member::leads).toList();
  }

  /** Waits until {@code done}, polling every 10 ms; how long it took. */
  private static long until(BooleanSupplier done) throws InterruptedException {
    long start = System.nanoTime();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() - start > LIMIT) {
        throw new IllegalStateException("not reached within 10 minutes");
      }
      TimeUnit.MILLISECONDS.sleep(10);
    }
    return System.nanoTime() - start;
  }

  /** The gRPC requests etcd has handled so far, summed over every method. */
  private static double requests(EtcdCluster cluster) {
    return cluster.member(0).metric("grpc_server_handled_total");
  }
}
