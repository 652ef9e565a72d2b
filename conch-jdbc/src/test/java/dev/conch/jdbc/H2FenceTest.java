package dev.conch.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;

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
  List<Integer> isolationLevels() {
    return List.of(
        Connection.TRANSACTION_READ_COMMITTED,
        Connection.TRANSACTION_REPEATABLE_READ,
        Connection.TRANSACTION_SERIALIZABLE);
  }
}
