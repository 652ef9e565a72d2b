package dev.conch.jdbc;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The fence on an embedded H2, at READ COMMITTED (its default), REPEATABLE READ, SERIALIZABLE. */
class H2FenceTest extends FenceRacesContract {

  private final String url =
      "jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";

  @Override
  Connection connect() throws SQLException {
    return DriverManager.getConnection(url);
  }

  @Override
  FenceDialect dialect() {
    return FenceDialect.H2;
  }

  @Override
  String waitingSessionsQuery() {
    // An INSERT waiting for an uncommitted duplicate shows no blocker in H2: its statement does.
    return "SELECT count(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE SESSION_ID <> SESSION_ID()"
        + " AND (BLOCKER_ID IS NOT NULL OR EXECUTING_STATEMENT LIKE '%conch_fence%')";
  }

  @Override
  boolean queuesLockRequestsInOrder() {
    // H2's waiting transactions retry their row lock in turn, in no order: a raise may wait
    // behind checks that came after it (docs/fencing.md, Limits).
    return false;
  }

  @Test
  void aMissingTableInAnEmptyDatabaseIsNamedWithItsSchemaScript() throws SQLException {
    // H2 reports a missing table of a database with no table at all under its own SQLState.
    try (Connection c =
        DriverManager.getConnection("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=0")) {
      c.setAutoCommit(false);
      assertThatThrownBy(() -> JdbcFence.create().check(c, "billing", 1, "h"))
          .isInstanceOf(FenceTableMissingException.class)
          .hasMessageContaining("'conch_fence' does not exist")
          .hasMessageContaining(FenceDialect.H2.schemaLocation());
    }
  }

  @Override
  List<Integer> isolationLevels() {
    return List.of(
        Connection.TRANSACTION_READ_COMMITTED,
        Connection.TRANSACTION_REPEATABLE_READ,
        Connection.TRANSACTION_SERIALIZABLE);
  }
}
