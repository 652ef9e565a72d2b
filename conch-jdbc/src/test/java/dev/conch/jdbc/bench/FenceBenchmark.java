package dev.conch.jdbc.bench;

import dev.conch.jdbc.FenceDialect;
import dev.conch.jdbc.JdbcFence;
import dev.conch.test.PostgresServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The cost of the fence on a real PostgreSQL: the same small transaction (one UPDATE of a random
 * row of 1,000, then COMMIT) with and without {@link JdbcFence#check} first, from 1 and from 8
 * connections, every connection fencing the same office at the same token (the steady state).
 * Fenced and unfenced rounds alternate, so that a busy neighbour on the machine weighs on both.
 *
 * <p>Arguments: {@code [seconds per round, default 3] [rounds, default 3] [durable|fast, default
 * both]}. {@code durable} keeps PostgreSQL's defaults (fsync and synchronous commit on); {@code
 * fast} is the test launcher's (both off). Prints one line per variant: transactions/s and the p50
 * and p99 latency of one transaction. A measurement, never a test.
 */
public final class FenceBenchmark {

  private static final int ROWS = 1_000;
  private static final long TOKEN = 42;

  private FenceBenchmark() {}

  /** Runs the benchmark; see the class comment for the arguments. */
  public static void main(String[] args) throws Exception {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    List<String> modes = args.length > 2 ? List.of(args[2]) : List.of("durable", "fast");
    for (String mode : modes) {
      PostgresServer.Builder builder = PostgresServer.builder();
      if (mode.equals("durable")) {
        builder.setting("fsync", "on").setting("synchronous_commit", "on");
        builder.setting("full_page_writes", "on");
      }
      try (PostgresServer server = builder.start()) {
        prepare(server);
        System.out.printf(
            Locale.ROOT,
            "jdbc fence, PostgreSQL %s (%s), %d rounds of %.1f s each way%n",
            mode,
            mode.equals("durable")
                ? "fsync, synchronous_commit on"
                : "fsync, synchronous_commit off",
            rounds,
            seconds);
        for (int connections : new int[] {1, 8}) {
          Result plain = new Result();
          Result fenced = new Result();
          run(server, connections, false, 1.0, new Result()); // warm-up, both paths
          run(server, connections, true, 1.0, new Result());
          for (int round = 0; round < rounds; round++) {
            run(server, connections, false, seconds, plain);
            run(server, connections, true, seconds, fenced);
          }
          plain.print("  " + connections + " conn, no fence");
          fenced.print("  " + connections + " conn, fenced  ");
          System.out.printf(
              Locale.ROOT,
              "  %d conn, fenced / unfenced throughput: %.1f %%%n",
              connections,
              100.0 * fenced.perSecond() / plain.perSecond());
        }
      }
    }
  }

  private static void prepare(PostgresServer server) throws SQLException {
    try (Connection c = connect(server);
        Statement s = c.createStatement()) {
      s.execute(FenceDialect.POSTGRESQL.createTableStatement(JdbcFence.DEFAULT_TABLE));
      s.execute("CREATE TABLE account (id INT PRIMARY KEY, balance BIGINT NOT NULL)");
      s.execute("INSERT INTO account SELECT g, 0 FROM generate_series(1, " + ROWS + ") AS g");
      c.setAutoCommit(false);
      JdbcFence.create().check(c, "bench", TOKEN, "bench");
      c.commit();
    }
  }

  private static Connection connect(PostgresServer server) throws SQLException {
    return DriverManager.getConnection(server.jdbcUrl(), PostgresServer.USER, "");
  }

  /** {@code connections} threads, each running transactions for {@code seconds}. */
  private static void run(
      PostgresServer server, int connections, boolean fenced, double seconds, Result into)
      throws Exception {
    JdbcFence fence = JdbcFence.create();
    AtomicInteger names = new AtomicInteger();
    ExecutorService threads =
        Executors.newFixedThreadPool(
            connections, task -> new Thread(task, "fence-bench-" + names.incrementAndGet()));
    try {
      long end = System.nanoTime() + (long) (seconds * 1e9);
      List<Future<long[]>> workers = new ArrayList<>();
      long start = System.nanoTime();
      for (int i = 0; i < connections; i++) {
        workers.add(threads.submit(() -> transactions(server, fence, fenced, end)));
      }
      for (Future<long[]> worker : workers) {
        into.add(worker.get((long) seconds + 60, TimeUnit.SECONDS));
      }
      into.elapsedNanos += System.nanoTime() - start;
    } finally {
      threads.shutdownNow();
    }
  }

  private static long[] transactions(
      PostgresServer server, JdbcFence fence, boolean fenced, long end) throws SQLException {
    long[] latencies = new long[1 << 16];
    int count = 0;
    try (Connection c = connect(server);
        PreparedStatement update =
            c.prepareStatement("UPDATE account SET balance = balance + 1 WHERE id = ?")) {
      c.setAutoCommit(false);
      while (System.nanoTime() < end) {
        long started = System.nanoTime();
        if (fenced) {
          fence.check(c, "bench", TOKEN, "bench");
        }
        update.setInt(1, 1 + ThreadLocalRandom.current().nextInt(ROWS));
        update.executeUpdate();
        c.commit();
        if (count == latencies.length) {
          latencies = Arrays.copyOf(latencies, count * 2);
        }
        latencies[count++] = System.nanoTime() - started;
      }
    }
    return Arrays.copyOf(latencies, count);
  }

  /** The latencies of one variant, over every round. */
  private static final class Result {
    private final List<long[]> latencies = new ArrayList<>();
    private long elapsedNanos;

    void add(long[] some) {
      latencies.add(some);
    }

    double perSecond() {
      long total = latencies.stream().mapToLong(l -> l.length).sum();
      return total / (elapsedNanos / 1e9);
    }

    void print(String label) {
      long[] all = latencies.stream().flatMapToLong(Arrays::stream).sorted().toArray();
      System.out.printf(
          Locale.ROOT,
          "%s  n=%d  %8.0f tx/s  p50 %6.2f ms  p99 %6.2f ms%n",
          label,
          all.length,
          perSecond(),
          all[all.length / 2] / 1e6,
          all[(int) (all.length * 0.99)] / 1e6);
    }
  }
}
