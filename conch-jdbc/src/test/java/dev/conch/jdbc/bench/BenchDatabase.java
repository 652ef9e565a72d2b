package dev.conch.jdbc.bench;

import dev.conch.jdbc.FenceDialect;
import dev.conch.jdbc.JdbcFence;
import dev.conch.test.MariaDbServer;
import dev.conch.test.PostgresServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;

/**
 * A database server for the fence's benchmarks: PostgreSQL or MariaDB (InnoDB), started by
 * conch-test in a temp dir on a free loopback port, either durable (a commit waits for the disk) or
 * fast (it does not), with the benchmarks' tables: the fence table, and {@code account} with
 * {@value #ROWS} rows that the benchmarks' transactions update.
 */
final class BenchDatabase implements AutoCloseable {

  /** The rows of {@code account}. */
  static final int ROWS = 1_000;

  /** The office every benchmark fences. */
  static final String OFFICE = "bench";

  /** The one UPDATE of every benchmark transaction: its parameter is a row id. */
  static final String UPDATE = "UPDATE account SET balance = balance + 1 WHERE id = ?";

  private final String kind;
  private final boolean durable;
  private final String url;
  private final String user;
  private final AutoCloseable server;
  private final PostgresServer postgres; // null for MariaDB

  private BenchDatabase(
      String kind,
      boolean durable,
      String url,
      String user,
      AutoCloseable server,
      PostgresServer postgres) {
    this.kind = kind;
    this.durable = durable;
    this.url = url;
    this.user = user;
    this.server = server;
    this.postgres = postgres;
  }

  /**
   * Starts {@code kind} ({@code postgresql} or {@code mariadb}), durable or fast, and creates the
   * tables; the fence's row is at {@code token}.
   */
  static BenchDatabase start(String kind, boolean durable, long token) throws SQLException {
    BenchDatabase db;
    switch (kind) {
      case "postgresql" -> {
        PostgresServer.Builder builder = PostgresServer.builder();
        if (durable) {
          builder
              .setting("fsync", "on")
              .setting("synchronous_commit", "on")
              .setting("full_page_writes", "on");
        }
        PostgresServer server = builder.start();
        db =
            new BenchDatabase(kind, durable, server.jdbcUrl(), PostgresServer.USER, server, server);
      }
      case "mariadb" -> {
        MariaDbServer.Builder builder = MariaDbServer.builder();
        // No binary log in either mode (conch-test's default), so sync_binlog has nothing to sync.
        builder.option("innodb-flush-log-at-trx-commit", durable ? "1" : "0");
        MariaDbServer server = builder.start();
        db = new BenchDatabase(kind, durable, server.jdbcUrl(), MariaDbServer.USER, server, null);
      }
      default ->
          throw new IllegalArgumentException(
              "unknown database '" + kind + "': postgresql or mariadb");
    }
    try {
      db.prepare(token);
      return db;
    } catch (SQLException | RuntimeException e) {
      db.close();
      throw e;
    }
  }

  private void prepare(long token) throws SQLException {
    FenceDialect dialect = postgres != null ? FenceDialect.POSTGRESQL : FenceDialect.MARIADB;
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      s.execute(dialect.createTableStatement(JdbcFence.DEFAULT_TABLE));
      s.execute("CREATE TABLE account (id INT PRIMARY KEY, balance BIGINT NOT NULL)");
      c.setAutoCommit(false);
      try (PreparedStatement insert =
          c.prepareStatement("INSERT INTO account (id, balance) VALUES (?, 0)")) {
        for (int id = 1; id <= ROWS; id++) {
          insert.setInt(1, id);
          insert.addBatch();
        }
        insert.executeBatch();
      }
      c.commit();
      JdbcFence.create().check(c, OFFICE, token, "bench");
      c.commit();
      if (postgres != null) {
        c.setAutoCommit(true);
        s.execute("VACUUM ANALYZE");
      }
    }
  }

  Connection connect() throws SQLException {
    return DriverManager.getConnection(url, user, "");
  }

  boolean isPostgres() {
    return postgres != null;
  }

  /** The PostgreSQL server; only for {@link #isPostgres()}. */
  PostgresServer postgres() {
    if (postgres == null) {
      throw new IllegalStateException("not PostgreSQL");
    }
    return postgres;
  }

  /** A statement that sleeps {@code ms} in the server, inside the transaction. */
  String sleep(int ms) {
    String seconds = String.format(Locale.ROOT, "%.3f", ms / 1000.0);
    return postgres != null ? "SELECT pg_sleep(" + seconds + ")" : "DO SLEEP(" + seconds + ")";
  }

  /** {@code PostgreSQL durable (fsync, synchronous_commit on)} and the like. */
  String describe() {
    if (postgres != null) {
      return "PostgreSQL "
          + (durable
              ? "durable (fsync, synchronous_commit on)"
              : "fast (fsync, synchronous_commit off)");
    }
    return "MariaDB "
        + (durable
            ? "durable (innodb_flush_log_at_trx_commit=1, no binary log)"
            : "fast (innodb_flush_log_at_trx_commit=0, no binary log)");
  }

  /** The server's version, as it reports it. */
  String version() throws SQLException {
    try (Connection c = connect()) {
      return c.getMetaData().getDatabaseProductName()
          + " "
          + c.getMetaData().getDatabaseProductVersion().split("[ -]")[0].toLowerCase(Locale.ROOT);
    }
  }

  @Override
  public void close() {
    try {
      server.close();
    } catch (Exception e) {
      System.err.println("could not stop " + kind + ": " + e);
    }
  }
}
