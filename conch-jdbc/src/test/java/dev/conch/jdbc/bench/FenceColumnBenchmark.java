package dev.conch.jdbc.bench;

import dev.conch.jdbc.FenceDialect;
import dev.conch.jdbc.FenceSchema;
import dev.conch.jdbc.JdbcFence;
import dev.conch.test.MariaDbServer;
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
 * The cost of the fence column on a real database: the same small transaction (one {@code UPDATE}
 * of a random row of 1,000 that also sets {@code fence_token}, then {@code COMMIT}) on a table
 * without the trigger ("plain"), on a table with the fence column's trigger ("column"), and on the
 * plain table after {@link JdbcFence#check} ("check", the fence with its own round trip), from 1
 * and from 8 connections, every connection writing the same office's token (the steady state). The
 * variants alternate round by round, so that a busy neighbour on the machine weighs on all.
 *
 * <p>Arguments: {@code [seconds per round, default 3] [rounds, default 3] [targets, default
 * postgresql-durable,postgresql-fast]}; the targets are {@code postgresql-durable} (fsync and
 * synchronous commit on), {@code postgresql-fast} (both off, as the tests run it), {@code
 * mariadb-durable} ({@code innodb_flush_log_at_trx_commit=1}) and {@code mariadb-fast} (0, as the
 * tests run it). Prints one line per variant: transactions/s and the p50 and p99 latency of one
 * transaction, and each fenced variant's throughput over the plain one. {@code
 * -Dbench.noGuard=true} leaves the guard off the fence table. A measurement, never a test.
 */
public final class FenceColumnBenchmark {

  private static final int ROWS = 1_000;
  private static final long TOKEN = 42;
  private static final String OFFICE = "bench";
  private static final String[] VARIANTS = {"plain", "column", "check"};

  private FenceColumnBenchmark() {}

  private interface Server extends AutoCloseable {
    Connection connect() throws SQLException;

    @Override
    void close();
  }

  /** Runs the benchmark; see the class comment for the arguments. */
  public static void main(String[] args) throws Exception {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    List<String> targets =
        List.of((args.length > 2 ? args[2] : "postgresql-durable,postgresql-fast").split(","));
    for (String target : targets) {
      try (Server server = start(target)) {
        prepare(server);
        System.out.printf(
            Locale.ROOT,
            "fence column, %s, %d rounds of %.1f s each variant%n",
            target,
            rounds,
            seconds);
        for (int connections : new int[] {1, 8}) {
          Result[] results = {new Result(), new Result(), new Result()};
          for (String variant : VARIANTS) {
            run(server, connections, variant, 1.0, new Result()); // warm-up
          }
          for (int round = 0; round < rounds; round++) {
            for (int v = 0; v < VARIANTS.length; v++) {
              run(server, connections, VARIANTS[v], seconds, results[v]);
            }
          }
          for (int v = 0; v < VARIANTS.length; v++) {
            results[v].print(
                String.format(Locale.ROOT, "  %d conn, %-6s", connections, VARIANTS[v]));
          }
          System.out.printf(
              Locale.ROOT,
              "  %d conn, column / plain: %.1f %%, check / plain: %.1f %%%n",
              connections,
              100.0 * results[1].perSecond() / results[0].perSecond(),
              100.0 * results[2].perSecond() / results[0].perSecond());
        }
      }
    }
  }

  private static Server start(String target) {
    switch (target) {
      case "postgresql-durable", "postgresql-fast" -> {
        PostgresServer.Builder builder = PostgresServer.builder();
        if (target.equals("postgresql-durable")) {
          builder.setting("fsync", "on").setting("synchronous_commit", "on");
          builder.setting("full_page_writes", "on");
        }
        PostgresServer server = builder.start();
        return new Server() {
          @Override
          public Connection connect() throws SQLException {
            return DriverManager.getConnection(server.jdbcUrl(), PostgresServer.USER, "");
          }

          @Override
          public void close() {
            server.close();
          }
        };
      }
      case "mariadb-durable", "mariadb-fast" -> {
        MariaDbServer.Builder builder = MariaDbServer.builder();
        if (target.equals("mariadb-durable")) {
          builder.option("innodb-flush-log-at-trx-commit", "1");
        }
        MariaDbServer server = builder.start();
        return new Server() {
          @Override
          public Connection connect() throws SQLException {
            return DriverManager.getConnection(server.jdbcUrl(), MariaDbServer.USER, "");
          }

          @Override
          public void close() {
            server.close();
          }
        };
      }
      default -> throw new IllegalArgumentException("unknown target " + target);
    }
  }

  private static void prepare(Server server) throws SQLException {
    try (Connection c = server.connect();
        Statement s = c.createStatement()) {
      FenceDialect dialect = FenceDialect.of(c);
      s.execute(dialect.createTableStatement(JdbcFence.DEFAULT_TABLE));
      if (!Boolean.getBoolean("bench.noGuard")) {
        FenceSchema.create().installGuard(c);
      }
      for (String table : new String[] {"account_plain", "account_column"}) {
        s.execute(
            "CREATE TABLE "
                + table
                + " (id INT PRIMARY KEY, balance BIGINT NOT NULL, fence_token BIGINT)");
        StringBuilder insert = new StringBuilder("INSERT INTO " + table + " VALUES ");
        for (int id = 1; id <= ROWS; id++) {
          insert.append(id == 1 ? "" : ", ").append('(').append(id).append(", 0, ").append(TOKEN);
          insert.append(')');
        }
        s.execute(insert.toString());
      }
      FenceSchema.create().installColumnTrigger(c, "account_column", "fence_token", OFFICE);
      c.setAutoCommit(false);
      JdbcFence.create().check(c, OFFICE, TOKEN, "bench");
      c.commit();
    }
  }

  /** {@code connections} threads, each running transactions for {@code seconds}. */
  private static void run(
      Server server, int connections, String variant, double seconds, Result into)
      throws Exception {
    AtomicInteger names = new AtomicInteger();
    ExecutorService threads =
        Executors.newFixedThreadPool(
            connections, task -> new Thread(task, "fence-bench-" + names.incrementAndGet()));
    try {
      long end = System.nanoTime() + (long) (seconds * 1e9);
      List<Future<long[]>> workers = new ArrayList<>();
      long start = System.nanoTime();
      for (int i = 0; i < connections; i++) {
        workers.add(threads.submit(() -> transactions(server, variant, end)));
      }
      for (Future<long[]> worker : workers) {
        into.add(worker.get((long) seconds + 60, TimeUnit.SECONDS));
      }
      into.elapsedNanos += System.nanoTime() - start;
    } finally {
      threads.shutdownNow();
    }
  }

  private static long[] transactions(Server server, String variant, long end) throws SQLException {
    JdbcFence fence = JdbcFence.create();
    boolean check = variant.equals("check");
    String table = variant.equals("column") ? "account_column" : "account_plain";
    long[] latencies = new long[1 << 16];
    int count = 0;
    try (Connection c = server.connect();
        PreparedStatement update =
            c.prepareStatement(
                "UPDATE " + table + " SET balance = balance + 1, fence_token = ? WHERE id = ?")) {
      c.setAutoCommit(false);
      while (System.nanoTime() < end) {
        long started = System.nanoTime();
        if (check) {
          fence.check(c, OFFICE, TOKEN, "bench");
        }
        update.setLong(1, TOKEN);
        update.setInt(2, 1 + ThreadLocalRandom.current().nextInt(ROWS));
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
