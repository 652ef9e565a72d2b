package dev.conch.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.conch.test.MariaDbExtension;
import dev.conch.test.MariaDbServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
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

  /** Slower than InnoDB's lock tables refresh ({@link MariaDbServer#LOCK_PROBE_INTERVAL}). */
  @Override
  Duration waitingPollInterval() {
    return MariaDbServer.LOCK_PROBE_INTERVAL;
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

  @Test
  void theMysqlStatementsRunHereTooAndCutTheirMessagesAt128Characters() throws SQLException {
    FenceSchema mysql = FenceSchema.forTable("mysql_fence");
    String office = "o".repeat(100) + "-mysql";
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      s.execute(FenceDialect.MYSQL.createTableStatement("mysql_fence"));
      for (String statement : mysql.guard(FenceDialect.MYSQL)) {
        s.execute(statement);
      }
      s.execute("CREATE TABLE mysql_fenced (who VARCHAR(32), fence_token BIGINT)");
      for (String statement :
          mysql.columnTrigger(FenceDialect.MYSQL, "mysql_fenced", "fence_token", office)) {
        s.execute(statement);
      }
      s.executeUpdate("INSERT INTO mysql_fenced VALUES ('newer', 7)");
      assertThatThrownBy(() -> s.executeUpdate("INSERT INTO mysql_fenced VALUES ('stale', 5)"))
          .isInstanceOfSatisfying(
              SQLException.class,
              e -> {
                assertThat(e.getSQLState()).isEqualTo(FenceSchema.STALE_TOKEN_SQLSTATE);
                assertThat(FenceSchema.isRefusal(e, FenceSchema.STALE_TOKEN_SQLSTATE)).isTrue();
                assertThat(e.getMessage()).contains("stale fencing token 5 for office 'ooo");
              });
      assertThatThrownBy(() -> s.executeUpdate("DELETE FROM mysql_fence"))
          .isInstanceOfSatisfying(
              SQLException.class,
              e -> assertThat(e.getSQLState()).isEqualTo(FenceSchema.GUARD_SQLSTATE));
    }
  }
}
