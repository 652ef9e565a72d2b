package dev.conch.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.test.MariaDbExtension;
import dev.conch.test.MariaDbServer;
import dev.conch.test.PostgresExtension;
import dev.conch.test.PostgresServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fence column holds whichever client writes: {@code psql} and {@code mariadb} (the
 * command-line clients, as another service or a person at a prompt would write) are refused a stale
 * or missing token, and write with the current one.
 */
@Timeout(60)
class FenceColumnShellTest {

  @RegisterExtension static final PostgresExtension postgres = PostgresExtension.create();
  @RegisterExtension static final MariaDbExtension mariadb = MariaDbExtension.create();

  @TempDir Path dir;

  @Test
  void psqlIsRefusedAStaleOrMissingTokenAndWritesWithTheCurrentOne() throws Exception {
    PostgresServer server = postgres.server();
    String url = server.jdbcUrl();
    prepare(url, PostgresServer.USER);
    List<String> psql = new ArrayList<>(server.psqlCommand());
    psql.addAll(List.of("-X", "-v", "ON_ERROR_STOP=1", "-c"));

    Result stale = run(psql, "UPDATE invoices SET state = 'sent', fence_token = 5");
    assertThat(stale.exit).as(stale.output).isNotZero();
    assertThat(stale.output)
        .contains("stale fencing token 5 for office 'billing': the fence holds token 7");
    Result missing = run(psql, "INSERT INTO invoices (state) VALUES ('due')");
    assertThat(missing.exit).as(missing.output).isNotZero();
    assertThat(missing.output).contains("carries no fencing token for office 'billing'");
    assertThat(state(url, PostgresServer.USER)).isEqualTo("due");

    Result current = run(psql, "UPDATE invoices SET state = 'sent', fence_token = 7");
    assertThat(current.exit).as(current.output).isZero();
    assertThat(state(url, PostgresServer.USER)).isEqualTo("sent");
  }

  @Test
  void theMariadbClientIsRefusedAStaleOrMissingTokenAndWritesWithTheCurrentOne() throws Exception {
    MariaDbServer server = mariadb.server();
    String url = server.jdbcUrl();
    prepare(url, MariaDbServer.USER);
    List<String> client =
        new ArrayList<>(
            List.of(
                "mariadb",
                "--no-defaults",
                "-h",
                "127.0.0.1",
                "-P",
                Integer.toString(server.port()),
                "-u",
                MariaDbServer.USER,
                MariaDbServer.DATABASE,
                "-e"));

    Result stale = run(client, "UPDATE invoices SET state = 'sent', fence_token = 5");
    assertThat(stale.exit).as(stale.output).isNotZero();
    assertThat(stale.output)
        .contains("stale fencing token 5 for office 'billing': the fence holds token 7");
    Result missing = run(client, "INSERT INTO invoices (state) VALUES ('due')");
    assertThat(missing.exit).as(missing.output).isNotZero();
    assertThat(missing.output).contains("carries no fencing token for office 'billing'");
    assertThat(state(url, MariaDbServer.USER)).isEqualTo("due");

    Result current = run(client, "UPDATE invoices SET state = 'sent', fence_token = 7");
    assertThat(current.exit).as(current.output).isZero();
    assertThat(state(url, MariaDbServer.USER)).isEqualTo("sent");
  }

  /** The fence table with its guard, invoices fenced for office billing, one due at token 7. */
  private static void prepare(String url, String user) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, user, "");
        Statement s = c.createStatement()) {
      s.execute(FenceDialect.of(c).createTableStatement(JdbcFence.DEFAULT_TABLE));
      FenceSchema.create().installGuard(c);
      s.execute("CREATE TABLE invoices (state VARCHAR(16) NOT NULL, fence_token BIGINT)");
      FenceSchema.create().installColumnTrigger(c, "invoices", "fence_token", "billing");
      s.execute("INSERT INTO invoices (state, fence_token) VALUES ('due', 7)");
    }
  }

  private static String state(String url, String user) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, user, "");
        Statement s = c.createStatement();
        ResultSet rows = s.executeQuery("SELECT state FROM invoices")) {
      List<String> states = new ArrayList<>();
      while (rows.next()) {
        states.add(rows.getString(1));
      }
      assertThat(states).hasSize(1);
      return states.get(0);
    }
  }

  private record Result(int exit, String output) {}

  private Result run(List<String> command, String sql) throws Exception {
    List<String> full = new ArrayList<>(command);
    full.add(sql);
    Path output = dir.resolve("output.txt");
    ProcessBuilder builder =
        new ProcessBuilder(full).redirectErrorStream(true).redirectOutput(output.toFile());
    builder.environment().put("HOME", dir.toString());
    Process process = builder.start();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      throw new AssertionError("the client did not finish in 30 s");
    }
    return new Result(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
  }
}
