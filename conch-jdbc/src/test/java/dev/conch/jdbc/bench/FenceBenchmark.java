package dev.conch.jdbc.bench;

import dev.conch.jdbc.JdbcFence;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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
 * and per round. A fifth argument names the variants ({@code bare,floor,fenced} by default); {@code
 * statement}, a diagnostic, sends the statements {@code check} sends (recorded from it once, with
 * the parameters written in as literals) prepared and closed per transaction, without the fence's
 * own client code: fenced / statement is what that code costs. A measurement, never a test.
 */
public final class FenceBenchmark {

  private static final long TOKEN = 42;

  /** The variants, in the order of the first round. */
  enum Variant {
    BARE,
    FLOOR,
    FENCED,
    /** Diagnostic: the statements check sends, recorded from it, sent without its client code. */
    STATEMENT
  }

  private FenceBenchmark() {}

  /** Runs the benchmark; see the class comment for the arguments. */
  public static void main(String[] args) throws Exception {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    List<String> databases = List.of((args.length > 2 ? args[2] : "postgresql,mariadb").split(","));
    List<String> modes = List.of((args.length > 3 ? args[3] : "durable,fast").split(","));
    List<Variant> variants = new ArrayList<>();
    for (String name : (args.length > 4 ? args[4] : "bare,floor,fenced").split(",")) {
      variants.add(Variant.valueOf(name.toUpperCase(Locale.ROOT)));
    }
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
          List<String> statements = PgbenchFence.fenceStatements(db, TOKEN);
          if (variants.contains(Variant.STATEMENT)) {
            System.out.println("  statement variant sends: " + String.join("; ", statements));
          }
          for (int connections : new int[] {1, 8}) {
            measure(db, connections, seconds, rounds, variants, statements);
          }
        }
      }
    }
  }

  private static void measure(
      BenchDatabase db,
      int connections,
      double seconds,
      int rounds,
      List<Variant> variants,
      List<String> statements)
      throws Exception {
    Map<Variant, Result> results = new EnumMap<>(Variant.class);
    Map<Variant, double[]> perRound = new EnumMap<>(Variant.class);
    for (Variant variant : variants) {
      results.put(variant, new Result());
      perRound.put(variant, new double[rounds]);
      run(db, connections, variant, statements, 1.0, new Result()); // warm-up
    }
    for (int round = 0; round < rounds; round++) {
      for (int i = 0; i < variants.size(); i++) {
        Variant variant = variants.get((i + round) % variants.size());
        Result one = new Result();
        run(db, connections, variant, statements, seconds, one);
        results.get(variant).addAll(one);
        perRound.get(variant)[round] = one.perSecond();
      }
    }
    for (Variant variant : variants) {
      results
          .get(variant)
          .print(
              String.format(
                  Locale.ROOT,
                  "  %d conn, %-9s",
                  connections,
                  variant.name().toLowerCase(Locale.ROOT)));
    }
    StringBuilder ratios = new StringBuilder();
    StringBuilder rows = new StringBuilder();
    for (Variant[] pair :
        new Variant[][] {
          {Variant.FENCED, Variant.FLOOR},
          {Variant.FENCED, Variant.BARE},
          {Variant.FLOOR, Variant.BARE},
          {Variant.FENCED, Variant.STATEMENT},
          {Variant.STATEMENT, Variant.FLOOR}
        }) {
      if (!results.containsKey(pair[0]) || !results.containsKey(pair[1])) {
        continue;
      }
      String name =
          pair[0].name().toLowerCase(Locale.ROOT) + " / " + pair[1].name().toLowerCase(Locale.ROOT);
      ratios.append(
          String.format(
              Locale.ROOT,
              "%s%s %.2f",
              ratios.length() == 0 ? "" : ", ",
              name,
              results.get(pair[0]).perSecond() / results.get(pair[1]).perSecond()));
      rows.append(rows.length() == 0 ? "" : ";").append(" ").append(name).append(":");
      for (int round = 0; round < rounds; round++) {
        rows.append(
            String.format(
                Locale.ROOT, " %.2f", perRound.get(pair[0])[round] / perRound.get(pair[1])[round]));
      }
    }
    System.out.printf(Locale.ROOT, "  %d conn, %s (per round:%s)%n", connections, ratios, rows);
  }

  /**
   * {@code connections} threads, each running transactions of {@code variant} for {@code seconds}.
   */
  private static void run(
      BenchDatabase db,
      int connections,
      Variant variant,
      List<String> statements,
      double seconds,
      Result into)
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
        workers.add(threads.submit(() -> transactions(c, fence, variant, statements, end)));
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
      Connection c, JdbcFence fence, Variant variant, List<String> statements, long end)
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
          case STATEMENT -> {
            for (String statement : statements) {
              try (PreparedStatement one = c.prepareStatement(statement)) {
                if (one.execute()) {
                  try (ResultSet row = one.getResultSet()) {
                    row.next();
                  }
                }
              }
            }
          }
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
