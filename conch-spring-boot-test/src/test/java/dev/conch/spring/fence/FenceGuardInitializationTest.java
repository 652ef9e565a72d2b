package dev.conch.spring.fence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.conch.jdbc.FenceSchema;
import dev.conch.spring.boot.autoconfigure.fence.FenceJdbcProperties;
import dev.conch.spring.boot.autoconfigure.fence.FenceSchemaInitializer;
import dev.conch.test.MariaDbExtension;
import dev.conch.test.MariaDbServer;
import dev.conch.test.PostgresExtension;
import dev.conch.test.PostgresServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

/**
 * Spring Boot's script runner installs the guard on real servers: the PL/pgSQL body and the
 * triggers' {@code BEGIN ... END} reach the database whole, twice without harm, under another table
 * name too; the guard then refuses a DELETE and lets a retirement through.
 */
@Timeout(60)
class FenceGuardInitializationTest {

  @RegisterExtension static final PostgresExtension postgres = PostgresExtension.create();
  @RegisterExtension static final MariaDbExtension mariadb = MariaDbExtension.create();

  @Test
  void onPostgresql() throws SQLException {
    DataSource dataSource =
        new SimpleDriverDataSource(
            new org.postgresql.Driver(), postgres.server().jdbcUrl(), PostgresServer.USER, "");
    assertGuarded(dataSource, "conch_fence");
    assertGuarded(dataSource, "other_fence");
  }

  @Test
  void onMariadb() throws SQLException {
    DataSource dataSource =
        new SimpleDriverDataSource(
            new org.mariadb.jdbc.Driver(), mariadb.server().jdbcUrl(), MariaDbServer.USER, "");
    assertGuarded(dataSource, "conch_fence");
    assertGuarded(dataSource, "other_fence");
  }

  @Test
  void instancesStartingTogetherAllInstallTheGuard() throws Exception {
    // Three instances of an application starting at once against one database server (the demo
    // does): H2's CREATE TRIGGER IF NOT EXISTS then fails in all but one with "object already
    // exists", PostgreSQL's CREATE OR REPLACE FUNCTION with "tuple concurrently updated".
    org.h2.tools.Server h2 =
        org.h2.tools.Server.createTcpServer(
                "-tcpPort",
                "0",
                "-ifNotExists",
                "-baseDir",
                java.nio.file.Files.createTempDirectory("conch-h2").toString())
            .start();
    try {
      String url = "jdbc:h2:tcp://127.0.0.1:" + h2.getPort() + "/guarded";
      startTogether(new SimpleDriverDataSource(new org.h2.Driver(), url, "sa", ""));
      startTogether(
          new SimpleDriverDataSource(
              new org.postgresql.Driver(), postgres.server().jdbcUrl(), PostgresServer.USER, ""));
    } finally {
      h2.stop();
    }
  }

  private static void startTogether(DataSource dataSource) throws Exception {
    for (int round = 0; round < 5; round++) {
      FenceJdbcProperties properties = new FenceJdbcProperties();
      properties.setTable("together_" + round);
      properties.setInitializeSchema(DatabaseInitializationMode.ALWAYS);
      java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(3);
      java.util.concurrent.ExecutorService instances =
          java.util.concurrent.Executors.newFixedThreadPool(3);
      try {
        java.util.List<java.util.concurrent.Future<Boolean>> started = new java.util.ArrayList<>();
        for (int i = 0; i < 3; i++) {
          started.add(
              instances.submit(
                  () -> {
                    together.await(10, java.util.concurrent.TimeUnit.SECONDS);
                    return new FenceSchemaInitializer(dataSource, properties).initializeDatabase();
                  }));
        }
        for (java.util.concurrent.Future<Boolean> instance : started) {
          assertThat(instance.get(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        }
      } finally {
        instances.shutdownNow();
      }
      String table = properties.getTable();
      try (Connection c = dataSource.getConnection();
          Statement s = c.createStatement()) {
        s.executeUpdate("INSERT INTO " + table + " VALUES ('billing', 7, 'h', CURRENT_TIMESTAMP)");
        assertThatThrownBy(() -> s.executeUpdate("DELETE FROM " + table))
            .satisfies(
                e -> assertThat(FenceSchema.isRefusal(e, FenceSchema.GUARD_SQLSTATE)).isTrue());
      }
    }
  }

  private static void assertGuarded(DataSource dataSource, String table) throws SQLException {
    FenceJdbcProperties properties = new FenceJdbcProperties();
    properties.setTable(table);
    properties.setInitializeSchema(DatabaseInitializationMode.ALWAYS);
    assertThat(new FenceSchemaInitializer(dataSource, properties).initializeDatabase()).isTrue();
    assertThat(new FenceSchemaInitializer(dataSource, properties).initializeDatabase()).isTrue();
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.executeUpdate("INSERT INTO " + table + " VALUES ('billing', 7, 'h', CURRENT_TIMESTAMP)");
      assertThatThrownBy(() -> s.executeUpdate("DELETE FROM " + table))
          .isInstanceOfSatisfying(
              SQLException.class,
              e -> assertThat(e.getSQLState()).isEqualTo(FenceSchema.GUARD_SQLSTATE));
      assertThat(FenceSchema.forTable(table).retire(c, "billing")).isTrue();
    }
  }
}
