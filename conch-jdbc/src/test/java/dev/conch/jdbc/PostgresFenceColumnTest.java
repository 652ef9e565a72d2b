package dev.conch.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.conch.test.PostgresExtension;
import dev.conch.test.PostgresServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The fence column on a real PostgreSQL (a PL/pgSQL trigger), at READ COMMITTED (its default),
 * REPEATABLE READ, SERIALIZABLE.
 */
class PostgresFenceColumnTest extends FenceColumnContract {

  @RegisterExtension static final PostgresExtension postgres = PostgresExtension.create();

  @Override
  Connection connect() throws SQLException {
    return DriverManager.getConnection(postgres.server().jdbcUrl(), PostgresServer.USER, "");
  }

  @Override
  FenceDialect dialect() {
    return FenceDialect.POSTGRESQL;
  }

  @Override
  String waitingSessionsQuery() {
    return "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'";
  }

  @Override
  String steadyStateLock() {
    return "SELECT pg_advisory_xact_lock_shared(1668247139, hashtext(?))";
  }

  @Override
  String retireByHand(String office) {
    return "SET LOCAL conch.retire_office = '" + office + "'";
  }

  @Override
  List<Integer> isolationLevels() {
    return List.of(
        Connection.TRANSACTION_READ_COMMITTED,
        Connection.TRANSACTION_REPEATABLE_READ,
        Connection.TRANSACTION_SERIALIZABLE);
  }

  @Test
  void theGuardRefusesATruncate() throws SQLException {
    Fenced t = newTable();
    write(t, NEWER, "newer");
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      assertThatThrownBy(() -> s.execute("TRUNCATE conch_fence"))
          .isInstanceOfSatisfying(
              SQLException.class,
              e -> assertThat(e.getSQLState()).isEqualTo(FenceSchema.GUARD_SQLSTATE))
          .hasMessageContaining("may not be truncated");
    }
    assertThat(token(t.office())).isEqualTo(NEWER);
  }

  @Test
  void theHolderIsTheSessionsConchHolderSetting() throws SQLException {
    Fenced t = newTable();
    try (Connection c = begin(Connection.TRANSACTION_READ_COMMITTED);
        Statement s = c.createStatement()) {
      s.execute("SET LOCAL conch.holder = 'worker-1'");
      insert(c, t, NEWER, "newer");
      c.commit();
    }
    assertThat(fenceRow(t.office()).get(1)).isEqualTo("worker-1");
  }

  @Test
  void aRaiseAfterTheSteadyStateInOneTransactionUpgradesItsLock() throws SQLException {
    // The same transaction writes at its token, then (a new term) at a newer one: it holds the
    // shared lock and takes the exclusive one, which no other session holds: it passes.
    Fenced t = newTable();
    write(t, STALE, "stale");
    try (Connection c = begin(Connection.TRANSACTION_READ_COMMITTED)) {
      insert(c, t, STALE, "stale");
      insert(c, t, NEWER, "newer");
      c.commit();
    }
    assertThat(token(t.office())).isEqualTo(NEWER);
  }
}
