package dev.conch.jdbc;

import dev.conch.test.PostgresExtension;
import dev.conch.test.PostgresServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The fence on a real PostgreSQL, at READ COMMITTED (its default), REPEATABLE READ, SERIALIZABLE.
 */
class PostgresFenceTest extends FenceRacesContract {

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
  List<Integer> isolationLevels() {
    return List.of(
        Connection.TRANSACTION_READ_COMMITTED,
        Connection.TRANSACTION_REPEATABLE_READ,
        Connection.TRANSACTION_SERIALIZABLE);
  }
}
