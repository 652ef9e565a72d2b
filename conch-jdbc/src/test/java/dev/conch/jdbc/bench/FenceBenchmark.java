package dev.conch.jdbc.bench;

import dev.conch.jdbc.JdbcFence;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
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
 * The cost of the fence against its floor, on a real PostgreSQL and a real MariaDB (InnoDB): the
 * same small transaction (one UPDATE of a random row of 1,000, then COMMIT) in three variants:
 *
 * <ul>
 *   <li><b>bare</b>: UPDATE, COMMIT;
 *   <li><b>floor</b>: {@code SELECT 1} first, in the fence's place: one more round trip, prepared
 *       and closed per transaction as the fence does, the least any fence in the database costs;
 *   <li><b>fenced</b>: {@link JdbcFence#check} first, every connection fencing the same office at
 *       the same token (the steady state), through the public API only, so that it measures
 *       whatever statements the fence sends in this build.
 * </ul>
 *
 * <p>From 1 and from 8 connections, durable (a commit waits for the disk) and fast. After a 1 s
 * warm-up of each variant, rounds of the three variants alternate (the order rotating every round),
 * so that a busy neighbour on the machine weighs on all three.
 *
 * <p>Arguments: {@code [seconds per round, default 3] [rounds, default 3] [databases, default
 * postgresql,mariadb] [modes, default durable,fast]}. Prints one line per variant (transactions/s,
 * p50 and p99 latency of one transaction) and the ratios fenced / floor and fenced / bare, overall
 * and per round. A measurement, never a test.
 */
public final class FenceBenchmark {

  private static final long TOKEN = 42;

  /** The three variants, in the order of the first round. */
  enum Variant {
    BARE,
    FLOOR,
    FENCED
  }

  private FenceBenchmark() {}

  /** Runs the benchmark; see the class comment for the arguments. */
  public static void main(String[] args) throws Exception {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    List<String> databases = List.of((args.length > 2 ? args[2] : "postgresql,mariadb").split(","));
    List<String> modes = List.of((args.length > 3 ? args[3] : "durable,fast").split(","));
    for (String database : databases) {
      for (String mode : modes) {
        try (BenchDatabase db = BenchDatabase.start(database, mode.equals("durable"), TOKEN)) {
          System.out.printf(
              Locale.ROOT,
              "jdbc fence, %s, %s, %d rounds of %.1f s per variant, load %s%n",
              db.describe(),
              db.version(),
              rounds,
              seconds,
              Load.now());
          for (int connections : new int[] {1, 8}) {
            measure(db, connections, seconds, rounds);
          }
        }
      }
    }
  }

  private static void measure(BenchDatabase db, int connections, double seconds, int rounds)
      throws Exception {
    Variant[] variants = Variant.values();
    Result[] results = new Result[variants.length];
    double[][] perRound = new double[variants.length][rounds];
    for (Variant variant : variants) {
      results[variant.ordinal()] = new Result();
      run(db, connections, variant, 1.0, new Result()); // warm-up
    }
    for (int round = 0; round < rounds; round++) {
      for (int i = 0; i < variants.length; i++) {
        Variant variant = variants[(i + round) % variants.length];
        Result one = new Result();
        run(db, connections, variant, seconds, one);
        results[variant.ordinal()].addAll(one);
        perRound[variant.ordinal()][round] = one.perSecond();
      }
    }
    for (Variant variant : variants) {
      results[variant.ordinal()].print(
          String.format(
              Locale.ROOT,
              "  %d conn, %-6s",
              connections,
              variant.name().toLowerCase(Locale.ROOT)));
    }
    double bare = results[Variant.BARE.ordinal()].perSecond();
    double floor = results[Variant.FLOOR.ordinal()].perSecond();
    double fenced = results[Variant.FENCED.ordinal()].perSecond();
    StringBuilder rows = new StringBuilder();
    for (int round = 0; round < rounds; round++) {
      rows.append(
          String.format(
              Locale.ROOT,
              " %.2f/%.2f",
              perRound[Variant.FENCED.ordinal()][round] / perRound[Variant.FLOOR.ordinal()][round],
              perRound[Variant.FENCED.ordinal()][round] / perRound[Variant.BARE.ordinal()][round]));
    }
    System.out.printf(
        Locale.ROOT,
        "  %d conn, fenced / floor %.2f, fenced / bare %.2f, floor / bare %.2f"
            + " (per round, fenced/floor / fenced/bare:%s)%n",
        connections,
        fenced / floor,
        fenced / bare,
        floor / bare,
        rows);
  }

  /**
   * {@code connections} threads, each running transactions of {@code variant} for {@code seconds}.
   */
  private static void run(
      BenchDatabase db, int connections, Variant variant, double seconds, Result into)
      throws Exception {
    JdbcFence fence = JdbcFence.create();
    AtomicInteger names = new AtomicInteger();
    ExecutorService threads =
        Executors.newFixedThreadPool(
            connections, task -> new Thread(task, "fence-bench-" + names.incrementAndGet()));
    try {
      List<Connection> open = new ArrayList<>();
      for (int i = 0; i < connections; i++) {
        open.add(db.connect());
      }
      long start = System.nanoTime();
      long end = start + (long) (seconds * 1e9);
      List<Future<long[]>> workers = new ArrayList<>();
      for (Connection c : open) {
        workers.add(threads.submit(() -> transactions(c, fence, variant, end)));
      }
      for (Future<long[]> worker : workers) {
        into.add(worker.get((long) seconds + 60, TimeUnit.SECONDS));
      }
      into.elapsedNanos += System.nanoTime() - start;
    } finally {
      threads.shutdownNow();
    }
  }

  private static long[] transactions(Connection c, JdbcFence fence, Variant variant, long end)
      throws SQLException {
    long[] latencies = new long[1 << 16];
    int count = 0;
    try (c;
        PreparedStatement update = c.prepareStatement(BenchDatabase.UPDATE)) {
      c.setAutoCommit(false);
      while (System.nanoTime() < end) {
        long started = System.nanoTime();
        switch (variant) {
          case BARE -> {}
          case FLOOR -> floor(c);
          case FENCED -> fence.check(c, BenchDatabase.OFFICE, TOKEN, "bench");
        }
        update.setInt(1, 1 + ThreadLocalRandom.current().nextInt(BenchDatabase.ROWS));
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

  /** One round trip in the fence's place, prepared and closed as the fence's statement is. */
  static void floor(Connection c) throws SQLException {
    try (PreparedStatement one = c.prepareStatement("SELECT 1");
        ResultSet row = one.executeQuery()) {
      row.next();
    }
  }

  /** The latencies of one variant, over every round. */
  static final class Result {
    private final List<long[]> latencies = new ArrayList<>();
    private long elapsedNanos;

    void add(long[] some) {
      latencies.add(some);
    }

    void addAll(Result other) {
      latencies.addAll(other.latencies);
      elapsedNanos += other.elapsedNanos;
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
          all.length == 0 ? 0 : all[all.length / 2] / 1e6,
          all.length == 0 ? 0 : all[(int) (all.length * 0.99)] / 1e6);
    }
  }
}
