package dev.conch.jdbc;

import dev.conch.test.MariaDbExtension;
import dev.conch.test.MariaDbServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The fence column on a real MariaDB (InnoDB; generated BEFORE INSERT and BEFORE UPDATE triggers),
 * at REPEATABLE READ (its default), READ COMMITTED, SERIALIZABLE.
 */
class MariaDbFenceColumnTest extends FenceColumnContract {

  @RegisterExtension static final MariaDbExtension mariadb = MariaDbExtension.create();

  @Override
  Connection connect() throws SQLException {
    return DriverManager.getConnection(mariadb.server().jdbcUrl(), MariaDbServer.USER, "");
  }

  @Override
  FenceDialect dialect() {
    return FenceDialect.MARIADB;
  }

  @Override
  String waitingSessionsQuery() {
    return "SELECT (SELECT count(*) FROM information_schema.INNODB_TRX"
        + " WHERE trx_state = 'LOCK WAIT') + (SELECT count(*) FROM information_schema.PROCESSLIST"
        + " WHERE ID <> CONNECTION_ID() AND INFO LIKE 'INSERT INTO fenced%')";
  }

  @Override
  String steadyStateLock() {
    return "SELECT token FROM conch_fence WHERE office = ? LOCK IN SHARE MODE";
  }

  @Override
  List<Integer> isolationLevels() {
    return List.of(
        Connection.TRANSACTION_REPEATABLE_READ,
        Connection.TRANSACTION_READ_COMMITTED,
        Connection.TRANSACTION_SERIALIZABLE);
  }
}
