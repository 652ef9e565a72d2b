package dev.conch.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;

/**
 * The fence column on an embedded H2 (the trigger class {@link H2FenceColumn}), at READ COMMITTED
 * (its default), REPEATABLE READ, SERIALIZABLE.
 */
class H2FenceColumnTest extends FenceColumnContract {

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
    return "SELECT count(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE SESSION_ID <> SESSION_ID()"
        + " AND (BLOCKER_ID IS NOT NULL OR EXECUTING_STATEMENT LIKE '%conch_fence%'"
        + " OR EXECUTING_STATEMENT LIKE 'INSERT INTO fenced%')";
  }

  @Override
  String steadyStateLock() {
    return "SELECT token FROM conch_fence WHERE office = ? FOR UPDATE";
  }

  @Override
  List<Integer> isolationLevels() {
    return List.of(
        Connection.TRANSACTION_READ_COMMITTED,
        Connection.TRANSACTION_REPEATABLE_READ,
        Connection.TRANSACTION_SERIALIZABLE);
  }
}
