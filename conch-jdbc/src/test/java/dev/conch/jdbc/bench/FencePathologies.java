package dev.conch.jdbc.bench;

import dev.conch.jdbc.JdbcFence;
import dev.conch.jdbc.StaleTokenException;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Two costs of the fence that a throughput figure does not show, measured on real servers through
 * {@link JdbcFence}'s public API only:
 *
 * <ul>
 *   <li>{@code multixact} (PostgreSQL): 8 connections run a fixed count of fenced transactions; the
 *       MultiXacts the server made, per 1,000 transactions, read from the server before and after
 *       ({@code CHECKPOINT}, then {@code next_multixact_id} and {@code next_multi_offset} of {@code
 *       pg_control_checkpoint()}: a checkpoint taken while nothing else runs records the counters
 *       exactly, where {@code mxid_age(datminmxid)} moves only with VACUUM). Beside it the same
 *       count from 1 connection, and with {@code SELECT 1} in the fence's place.
 *   <li>{@code starvation} (PostgreSQL, MariaDB): 8 stale workers run fenced transactions of the
 *       current token that each hold 20 ms (the fence, a 20 ms sleep in the server, an UPDATE,
 *       COMMIT), one after the other without pause; then a newer leader raises the token and makes
 *       its first fenced write. How long the raise waits, and how many stale transactions commit
 *       while it waits, repeated. The raise is {@code JdbcFence.raise(Connection, office, token,
 *       holder)} when this build has it, else {@code check} in a transaction of its own; the output
 *       says which. A raise still waiting after the cap is let through by stopping the stale
 *       workers, and counts as the cap (a lower bound).
 * </ul>
 *
 * <p>Arguments: {@code multixact [transactions, default 20000] [modes, default fast]} or {@code
 * starvation [repetitions, default 10] [cap seconds, default 10] [databases, default
 * postgresql,mariadb] [stale workers, default 8] [hold ms, default 20]}. A measurement, never a
 * test.
 */
public final class FencePathologies {

  private FencePathologies() {}

  /** Runs one of the two; see the class comment for the arguments. */
  public static void main(String[] args) throws Exception {
    String what = args.length > 0 ? args[0] : "multixact";
    switch (what) {
      case "multixact" -> {
        int count = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        for (String mode : (args.length > 2 ? args[2] : "fast").split(",")) {
          multixacts(count, mode.equals("durable"));
        }
      }
      case "starvation" -> {
        int repetitions = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        double cap = args.length > 2 ? Double.parseDouble(args[2]) : 10;
        int workers = args.length > 4 ? Integer.parseInt(args[4]) : 8;
        int holdMs = args.length > 5 ? Integer.parseInt(args[5]) : 20;
        for (String database : (args.length > 3 ? args[3] : "postgresql,mariadb").split(",")) {
          starvation(database, repetitions, cap, workers, holdMs);
        }
      }
      default -> throw new IllegalArgumentException("multixact or starvation, not " + what);
    }
  }

  // --- MultiXacts
  // ----------------------------------------------------------------------------------

  private static void multixacts(int count, boolean durable) throws Exception {
    long token = 42;
    try (BenchDatabase db = BenchDatabase.start("postgresql", durable, token)) {
      System.out.printf(
          Locale.ROOT,
          "multixacts, %s, %s, %,d transactions each, load %s%n",
          db.describe(),
          db.version(),
          count,
          Load.now());
      JdbcFence fence = JdbcFence.create();
      record Row(String label, int connections, boolean fenced) {}
      for (Row row :
          List.of(
              new Row("8 conn, fenced", 8, true),
              new Row("1 conn, fenced", 1, true),
              new Row("8 conn, floor ", 8, false))) {
        long[] before = multixactCounters(db);
        AtomicInteger left = new AtomicInteger(count);
        long started = System.nanoTime();
        ExecutorService threads = Executors.newFixedThreadPool(row.connections());
        try {
          List<Future<?>> workers = new ArrayList<>();
          for (int i = 0; i < row.connections(); i++) {
            workers.add(
                threads.submit(
                    () -> {
                      try (Connection c = db.connect();
                          PreparedStatement update = c.prepareStatement(BenchDatabase.UPDATE)) {
                        c.setAutoCommit(false);
                        while (left.getAndDecrement() > 0) {
                          if (row.fenced()) {
                            fence.check(c, BenchDatabase.OFFICE, token, "bench");
                          } else {
                            FenceBenchmark.floor(c);
                          }
                          update.setInt(
                              1, 1 + ThreadLocalRandom.current().nextInt(BenchDatabase.ROWS));
                          update.executeUpdate();
                          c.commit();
                        }
                      }
                      return null;
                    }));
          }
          for (Future<?> worker : workers) {
            worker.get(10, TimeUnit.MINUTES);
          }
        } finally {
          threads.shutdownNow();
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        long[] after = multixactCounters(db);
        long made = after[0] - before[0];
        long members = after[1] - before[1];
        System.out.printf(
            Locale.ROOT,
            "  %s  %,6.0f tx/s  next_multixact_id %d -> %d: %,d MultiXacts, %.0f per 1,000"
                + " transactions, %,d members (%.1f per MultiXact)%n",
            row.label(),
            count / seconds,
            before[0],
            after[0],
            made,
            1000.0 * made / count,
            members,
            made == 0 ? 0 : (double) members / made);
      }
    }
  }

  /**
   * {@code [next MultiXact id, next member offset]}, exact after a CHECKPOINT on an idle server.
   */
  private static long[] multixactCounters(BenchDatabase db) throws SQLException {
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      s.execute("CHECKPOINT");
      try (ResultSet row =
          s.executeQuery(
              "SELECT next_multixact_id::text::bigint, next_multi_offset::text::bigint"
                  + " FROM pg_control_checkpoint()")) {
        row.next();
        return new long[] {row.getLong(1), row.getLong(2)};
      }
    }
  }

  // --- Starvation of the raise
  // ---------------------------------------------------------------------

  /**
   * The newer leader's first fenced transaction of a term, before its write: {@code raise} when
   * {@link JdbcFence} has it, else {@code check} in a transaction of its own. The one place to
   * change when the API changes.
   */
  interface Raise {
    void raise(JdbcFence fence, Connection c, String office, long token, String holder)
        throws SQLException;

    String describe();

    static Raise find() {
      Method method;
      try {
        method =
            JdbcFence.class.getMethod(
                "raise", Connection.class, String.class, long.class, String.class);
      } catch (NoSuchMethodException e) {
        method = null;
      }
      if (method == null) {
        return new Raise() {
          @Override
          public void raise(JdbcFence fence, Connection c, String office, long token, String holder)
              throws SQLException {
            fence.check(c, office, token, holder);
            c.commit();
          }

          @Override
          public String describe() {
            return "JdbcFence.check + COMMIT in a transaction of its own (this build has no raise)";
          }
        };
      }
      Method found = method;
      return new Raise() {
        @Override
        public void raise(JdbcFence fence, Connection c, String office, long token, String holder)
            throws SQLException {
          try {
            // The raise runs a transaction of its own on a connection outside any.
            c.setAutoCommit(true);
            found.invoke(fence, c, office, token, holder);
            c.setAutoCommit(false);
          } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
          } catch (InvocationTargetException e) {
            if (e.getCause() instanceof SQLException sql) {
              throw sql;
            }
            if (e.getCause() instanceof RuntimeException runtime) {
              throw runtime;
            }
            throw new IllegalStateException(e.getCause());
          }
        }

        @Override
        public String describe() {
          return "JdbcFence.raise (it commits)";
        }
      };
    }
  }

  private static void starvation(
      String database, int repetitions, double capSeconds, int workerCount, int holdMs)
      throws Exception {
    long token = 100;
    Raise raise = Raise.find();
    JdbcFence fence = JdbcFence.create();
    try (BenchDatabase db = BenchDatabase.start(database, false, token)) {
      System.out.printf(
          Locale.ROOT,
          "starvation of the raise, %s, %s, %d stale workers holding %d ms each, %d repetitions,"
              + " cap %.0f s, load %s%n  newer leader's first fenced write: %s, then check +"
              + " UPDATE + COMMIT%n",
          db.describe(),
          db.version(),
          workerCount,
          holdMs,
          repetitions,
          capSeconds,
          Load.now(),
          raise.describe());
      double[] waits = new double[repetitions];
      long[] during = new long[repetitions];
      for (int rep = 0; rep < repetitions; rep++) {
        long stale = token;
        long newer = token + 1;
        AtomicBoolean stop = new AtomicBoolean();
        ConcurrentLinkedQueue<Long> commits = new ConcurrentLinkedQueue<>();
        Map<String, AtomicInteger> failures = new ConcurrentHashMap<>();
        AtomicLong refused = new AtomicLong();
        ExecutorService threads = Executors.newFixedThreadPool(workerCount + 1);
        try {
          List<Future<?>> workers = new ArrayList<>();
          for (int i = 0; i < workerCount; i++) {
            Connection c = db.connect();
            workers.add(
                threads.submit(
                    () -> {
                      staleWorker(db, c, fence, stale, holdMs, stop, commits, failures, refused);
                      return null;
                    }));
          }
          Thread.sleep(500); // the stale workers' steady state
          long staleBefore = commits.size();
          Connection n = db.connect();
          n.setAutoCommit(false);
          long[] times = new long[3];
          Future<?> first =
              threads.submit(
                  () -> {
                    try (n;
                        PreparedStatement update = n.prepareStatement(BenchDatabase.UPDATE)) {
                      times[0] = System.nanoTime();
                      raise.raise(fence, n, BenchDatabase.OFFICE, newer, "newer");
                      times[1] = System.nanoTime();
                      fence.check(n, BenchDatabase.OFFICE, newer, "newer");
                      update.setInt(1, 1);
                      update.executeUpdate();
                      n.commit();
                      times[2] = System.nanoTime();
                    }
                    return null;
                  });
          boolean capped = false;
          try {
            first.get((long) (capSeconds * 1000), TimeUnit.MILLISECONDS);
          } catch (TimeoutException e) {
            capped = true;
            stop.set(true);
            first.get(2, TimeUnit.MINUTES);
          }
          stop.set(true);
          for (Future<?> worker : workers) {
            worker.get(2, TimeUnit.MINUTES);
          }
          long t0 = times[0];
          long raised = times[1];
          long committed = commits.stream().filter(t -> t > t0 && t < raised).count();
          waits[rep] = (raised - t0) / 1e6;
          during[rep] = committed;
          System.out.printf(
              Locale.ROOT,
              "  rep %2d: raise waited %7.1f ms%s, first write done after %7.1f ms, %4d stale"
                  + " commits while it waited (%d in the 0.5 s before), %d stale refused after,"
                  + " failures %s%n",
              rep + 1,
              waits[rep],
              capped ? " (capped: the stale workers were stopped)" : "",
              (times[2] - t0) / 1e6,
              committed,
              staleBefore,
              refused.get(),
              failures);
        } finally {
          threads.shutdownNow();
        }
        token = newer;
      }
      if (db.isPostgres()) {
        deadlocks(db.postgres().logFile());
      }
      double[] sortedWaits = waits.clone();
      Arrays.sort(sortedWaits);
      long[] sortedDuring = during.clone();
      Arrays.sort(sortedDuring);
      System.out.printf(
          Locale.ROOT,
          "  %s: raise wait median %.1f ms, max %.1f ms; stale commits while it waited median %d,"
              + " max %d%n",
          db.describe(),
          sortedWaits[repetitions / 2],
          sortedWaits[repetitions - 1],
          sortedDuring[repetitions / 2],
          sortedDuring[repetitions - 1]);
    }
  }

  /** The server log's account of the deadlocks it broke (the first one's lines), if any. */
  private static void deadlocks(Path log) {
    try {
      List<String> lines = Files.readAllLines(log);
      long count = lines.stream().filter(l -> l.contains("deadlock detected")).count();
      if (count == 0) {
        return;
      }
      System.out.printf(Locale.ROOT, "  the server broke %d deadlocks; the first:%n", count);
      int shown = -1;
      for (String line : lines) {
        if (shown < 0 && line.contains("deadlock detected")) {
          shown = 0;
        }
        if (shown >= 0 && shown++ < 14) {
          System.out.println("    " + line.strip());
        }
      }
    } catch (IOException e) {
      System.out.println("  could not read the server log: " + e);
    }
  }

  /**
   * Fenced transactions of the stale token, each holding {@code holdMs}, until stopped or refused.
   */
  private static void staleWorker(
      BenchDatabase db,
      Connection c,
      JdbcFence fence,
      long token,
      int holdMs,
      AtomicBoolean stop,
      ConcurrentLinkedQueue<Long> commits,
      Map<String, AtomicInteger> failures,
      AtomicLong refused)
      throws SQLException {
    try (c;
        PreparedStatement sleep = c.prepareStatement(db.sleep(holdMs));
        PreparedStatement update = c.prepareStatement(BenchDatabase.UPDATE)) {
      c.setAutoCommit(false);
      while (!stop.get()) {
        try {
          fence.check(c, BenchDatabase.OFFICE, token, "stale");
          sleep.execute();
          update.setInt(1, 2 + ThreadLocalRandom.current().nextInt(BenchDatabase.ROWS - 1));
          update.executeUpdate();
          c.commit();
          commits.add(System.nanoTime());
        } catch (StaleTokenException e) {
          c.rollback();
          refused.incrementAndGet();
          return;
        } catch (SQLException e) {
          c.rollback();
          failures.computeIfAbsent(e.getSQLState(), k -> new AtomicInteger()).incrementAndGet();
        }
      }
    }
  }
}
