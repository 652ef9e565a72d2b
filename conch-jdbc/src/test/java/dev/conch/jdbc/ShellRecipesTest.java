package dev.conch.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.test.MariaDbExtension;
import dev.conch.test.MariaDbServer;
import dev.conch.test.PostgresExtension;
import dev.conch.test.PostgresServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shell recipes of docs/cli.md, run as they are written (with {@code psql} and {@code
 * mariadb}'s {@code mysql}) against real servers: a stale {@code CONCH_REV} writes nothing and
 * exits non-zero, the current one writes and exits 0.
 */
@Timeout(60)
class ShellRecipesTest {

  @RegisterExtension static final PostgresExtension postgres = PostgresExtension.create();
  @RegisterExtension static final MariaDbExtension mariadb = MariaDbExtension.create();

  @TempDir Path dir;

  @Test
  void thePsqlRecipeRefusesAStaleTokenAndWritesWithTheCurrentOne() throws Exception {
    PostgresServer server = postgres.server();
    try (Connection c = DriverManager.getConnection(server.jdbcUrl(), PostgresServer.USER, "");
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE appdb");
    }
    String url = server.jdbcUrl().replace("/" + PostgresServer.DATABASE, "/appdb");
    prepare(url, PostgresServer.USER, FenceDialect.POSTGRESQL);
    Map<String, String> env =
        Map.of(
            "PGHOST",
            "127.0.0.1",
            "PGPORT",
            Integer.toString(server.port()),
            "PGUSER",
            PostgresServer.USER,
            "PATH",
            server.binDirectory() + ":" + System.getenv("PATH"));
    Path job = recipe(0);

    Result stale = run(job, env, "5");
    assertThat(stale.exit).as(stale.output).isEqualTo(3);
    assertThat(stale.output).contains("no rows returned for \\gset");
    assertThat(state(url, PostgresServer.USER)).isEqualTo("due");

    Result current = run(job, env, "7");
    assertThat(current.exit).as(current.output).isZero();
    assertThat(state(url, PostgresServer.USER)).isEqualTo("sent");
  }

  @Test
  void theMysqlRecipeRefusesAStaleTokenAndWritesWithTheCurrentOne() throws Exception {
    MariaDbServer server = mariadb.server();
    try (Connection c = DriverManager.getConnection(server.jdbcUrl(), MariaDbServer.USER, "");
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE appdb");
    }
    String url = server.jdbcUrl().replace("/" + MariaDbServer.DATABASE, "/appdb");
    prepare(url, MariaDbServer.USER, FenceDialect.MARIADB);
    Map<String, String> env =
        Map.of(
            "MYSQL_HOST",
            "127.0.0.1",
            "MYSQL_TCP_PORT",
            Integer.toString(server.port()),
            "USER",
            MariaDbServer.USER,
            "PATH",
            System.getenv("PATH"));
    Path job = recipe(1);

    Result stale = run(job, env, "5");
    assertThat(stale.exit).as(stale.output).isEqualTo(1);
    assertThat(stale.output).contains("Column 'token' cannot be null");
    assertThat(state(url, MariaDbServer.USER)).isEqualTo("due");

    Result current = run(job, env, "7");
    assertThat(current.exit).as(current.output).isZero();
    assertThat(state(url, MariaDbServer.USER)).isEqualTo("sent");
  }

  /** The fence table with token 7 for office billing, and one invoice due. */
  private static void prepare(String url, String user, FenceDialect dialect) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, user, "");
        Statement s = c.createStatement()) {
      s.execute(dialect.createTableStatement(JdbcFence.DEFAULT_TABLE));
      s.execute("CREATE TABLE invoices (state VARCHAR(16) NOT NULL)");
      s.execute("INSERT INTO invoices (state) VALUES ('due')");
      c.setAutoCommit(false);
      JdbcFence.create().check(c, "billing", 7, "the newer leader");
      c.commit();
    }
  }

  private static String state(String url, String user) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, user, "");
        Statement s = c.createStatement();
        ResultSet row = s.executeQuery("SELECT state FROM invoices")) {
      row.next();
      return row.getString(1);
    }
  }

  /** The {@code index}th tested shell block of docs/cli.md, as a file. */
  private Path recipe(int index) throws IOException {
    String doc = Files.readString(Path.of("..", "docs", "cli.md"), StandardCharsets.UTF_8);
    String[] parts = doc.split("<!-- tested: conch-jdbc ShellRecipesTest -->\n```sh\n", -1);
    assertThat(parts).as("tested recipes in docs/cli.md").hasSizeGreaterThan(index + 1);
    String script = parts[index + 1].substring(0, parts[index + 1].indexOf("\n```\n") + 1);
    Path job = dir.resolve("job-" + index + ".sh");
    Files.writeString(job, script, StandardCharsets.UTF_8);
    return job;
  }

  private record Result(int exit, String output) {}

  private Result run(Path job, Map<String, String> env, String token) throws Exception {
    ProcessBuilder builder = new ProcessBuilder("sh", job.toString()).redirectErrorStream(true);
    builder.environment().clear();
    builder.environment().putAll(env);
    builder.environment().put("CONCH_NAME", "billing");
    builder.environment().put("CONCH_REV", token);
    builder.environment().put("HOME", dir.toString());
    Path output = dir.resolve("output.txt");
    builder.redirectOutput(output.toFile());
    Process process = builder.start();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      throw new AssertionError("the recipe did not finish in 30 s");
    }
    return new Result(process.exitValue(), String.join("\n", Files.readAllLines(output)));
  }
}
