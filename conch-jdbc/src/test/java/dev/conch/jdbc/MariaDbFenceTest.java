package dev.conch.jdbc;

import dev.conch.test.MariaDbExtension;
import dev.conch.test.MariaDbServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The fence on a real MariaDB (InnoDB), at REPEATABLE READ (its default), READ COMMITTED,
 * SERIALIZABLE.
 */
class MariaDbFenceTest extends FenceRacesContract {

  @RegisterExtension static final MariaDbExtension mariadb = MariaDbExtension.create();

  @Override
  Connection connect() throws SQLException {
    return DriverManager.getConnection(mariadb.server().jdbcUrl(), MariaDbServer.USER, "");
  }

  @Override
  FenceDialect dialect() {
    return FenceDialect.MARIADB;
  }

  /** Slower than InnoDB's lock tables refresh ({@link MariaDbServer#LOCK_PROBE_INTERVAL}). */
  @Override
  Duration waitingPollInterval() {
    return MariaDbServer.LOCK_PROBE_INTERVAL;
  }

  @Override
  String waitingSessionsQuery() {
    // Only sessions in a lock wait (a session merely running a statement on the fence is not).
    return "SELECT count(*) FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'";
  }

  @Override
  List<Integer> isolationLevels() {
    return List.of(
        Connection.TRANSACTION_REPEATABLE_READ,
        Connection.TRANSACTION_READ_COMMITTED,
        Connection.TRANSACTION_SERIALIZABLE);
  }
}
