package dev.conch.chaos;

import dev.conch.jdbc.FenceDialect;
import dev.conch.jdbc.JdbcFence;
import dev.conch.test.PostgresServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The soak's PostgreSQL: every supervised command writes rows into it through the fence, with the
 * psql recipe of docs/cli.md and its {@code CONCH_REV}, and the report counts what the database
 * refused and what it should have refused.
 *
 * <p>A write is one transaction: the fence statement on {@code conch_fence}, then one row of {@code
 * soak_write}. The fence keeps the office's row locked until the transaction ends, so the rows'
 * ids, drawn after the fence, are in commit order: a committed row whose token is lower than that
 * of a row committed before it is a stale write the fence let through. The goal is none, frozen
 * supervisors included (their commands go on writing with the old token while a successor writes
 * with the new one).
 */
final class SoakDatabase implements AutoCloseable {

  /** The statements of one write, run by {@code psql -f} with {@code -v token= -v who=}. */
  private static final String WRITE =
      """
      BEGIN;
      SELECT pg_advisory_xact_lock(1668247139, hashtext('chaos')) \\gset
      INSERT INTO conch_fence AS f (office, token, holder, updated_at)
        VALUES ('chaos', :'token', :'who', CURRENT_TIMESTAMP)
        ON CONFLICT (office) DO UPDATE
          SET token = EXCLUDED.token, holder = EXCLUDED.holder, updated_at = EXCLUDED.updated_at
          WHERE f.token <= EXCLUDED.token
        RETURNING token \\gset
      INSERT INTO soak_write (token, candidate) VALUES (:'token', :'who');
      COMMIT;
      """;

  /** The soak's own table; the fence table comes from conch-jdbc's schema script. */
  private static final String WRITES_TABLE =
      "CREATE TABLE soak_write (id BIGSERIAL PRIMARY KEY, token BIGINT NOT NULL,"
          + " candidate INT NOT NULL, at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT"
          + " clock_timestamp())";

  /** How many committed writes there were, and how many of them were stale. */
  record Writes(long committed, long staleCommits, long refused) {}

  private final PostgresServer server;
  private final Path script;

  private SoakDatabase(PostgresServer server, Path script) {
    this.server = server;
    this.script = script;
  }

  /** Starts a PostgreSQL, creates the tables and writes the commands' script into {@code dir}. */
  static SoakDatabase start(Path dir) {
    PostgresServer server = PostgresServer.start();
    try {
      Path script = dir.resolve("write.sql");
      Files.writeString(script, WRITE, StandardCharsets.UTF_8);
      SoakDatabase database = new SoakDatabase(server, script);
      database.psql(FenceDialect.POSTGRESQL.createTableStatement(JdbcFence.DEFAULT_TABLE));
      database.psql(WRITES_TABLE);
      return database;
    } catch (IOException | RuntimeException e) {
      server.close();
      throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
    }
  }

  /** What a supervisor passes on to its command: where the server and the script are. */
  Map<String, String> environment() {
    return Map.of(
        "PGHOST",
        "127.0.0.1",
        "PGPORT",
        Integer.toString(server.port()),
        "PGUSER",
        PostgresServer.USER,
        "PGDATABASE",
        PostgresServer.DATABASE,
        "CHAOS_PSQL",
        server.psqlCommand().get(0),
        "CHAOS_SQL",
        script.toString());
  }

  /**
   * The writes of the run: committed rows, those among them whose token is lower than one committed
   * before (must be 0), and the attempts the fence refused (counted by the commands).
   */
  Writes writes(Path dir) {
    long committed = Long.parseLong(psql("SELECT count(*) FROM soak_write").strip());
    long stale =
        Long.parseLong(
            psql("SELECT count(*) FROM (SELECT token, max(token) OVER (ORDER BY id ROWS BETWEEN"
                    + " UNBOUNDED PRECEDING AND 1 PRECEDING) AS before FROM soak_write) w"
                    + " WHERE token < before")
                .strip());
    return new Writes(committed, stale, refusals(dir));
  }

  /** Lines the commands appended to their {@code .refused} files: one per refused write. */
  private static long refusals(Path dir) {
    try (Stream<Path> files = Files.list(dir)) {
      long total = 0;
      for (Path file : files.filter(f -> f.toString().endsWith(".refused")).toList()) {
        total += Files.readAllLines(file).size();
      }
      return total;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  String psql(String sql) {
    List<String> command = new ArrayList<>(server.psqlCommand());
    command.addAll(List.of("-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-c", sql));
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out;
      try (var stream = process.getInputStream()) {
        out = new String(stream.readAllBytes(), StandardCharsets.UTF_8);
      }
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException("psql did not answer within 30 s: " + sql);
      }
      if (process.exitValue() != 0) {
        throw new IllegalStateException("psql failed (" + process.exitValue() + "): " + out);
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running psql", e);
    }
  }

  @Override
  public void close() {
    server.close();
  }
}
