package dev.conch.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.conch.Holder;
import dev.conch.Leadership;
import dev.conch.test.MariaDbExtension;
import dev.conch.test.MariaDbServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The fence on a Galera cluster (a real one-node MariaDB Galera cluster from Debian's {@code
 * galera-4}): every node takes its own row locks and certification decides at commit, so a stale
 * leader writing through another node would not wait for the fence. The fence refuses it by name at
 * a term's raise, before it writes anything.
 */
@Timeout(120)
class GaleraFenceTest {

  @RegisterExtension
  static final MariaDbExtension galera =
      MariaDbExtension.of(
          MariaDbServer.builder()
              .option("wsrep-on", "ON")
              .option("wsrep-provider", "/usr/lib/galera/libgalera_smm.so")
              .option("wsrep-cluster-address", "gcomm://")
              .option("wsrep-node-address", "127.0.0.1")
              .option(
                  "wsrep-provider-options",
                  "gmcast.listen_addr=tcp://127.0.0.1:"
                      + freePort()
                      + ";ist.recv_addr=127.0.0.1:"
                      + freePort())
              .option("binlog-format", "ROW")
              .option("innodb-autoinc-lock-mode", "2"));

  private final JdbcFence fence = JdbcFence.create();

  /** A loopback port free now, for Galera's group and state-transfer listeners. */
  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @BeforeAll
  static void createTable() throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      s.execute(FenceDialect.MARIADB.createTableStatement(JdbcFence.DEFAULT_TABLE));
    }
  }

  static Connection connect() throws SQLException {
    return DriverManager.getConnection(galera.server().jdbcUrl(), MariaDbServer.USER, "");
  }

  @Test
  void aTermsRaiseIsRefusedNamingGaleraAndWritesNothing() throws SQLException {
    Leadership term = new Leadership("billing", 7, 0, Holder.of("billing", "h", 1, null, "a"));
    try (Connection c = connect()) {
      assertThat(c.createStatement().executeQuery("SELECT @@wsrep_on").next()).isTrue();
      assertThatThrownBy(() -> fence.raise(c, term))
          .isInstanceOf(SQLFeatureNotSupportedException.class)
          .hasMessageContaining("office 'billing'")
          .hasMessageContaining("Galera, wsrep_on=ON")
          .hasMessageContaining("single primary");
      assertThat(fence.currentToken(c, "billing")).isEmpty();
    }
  }

  @Test
  void aFirstCheckInsideATransactionIsRefusedToo() throws SQLException {
    try (Connection c = connect()) {
      c.setAutoCommit(false);
      assertThatThrownBy(() -> fence.check(c, "reports", 3, "a"))
          .isInstanceOf(SQLFeatureNotSupportedException.class)
          .hasMessageContaining("office 'reports'");
      c.rollback();
      assertThat(fence.currentToken(c, "reports")).isEmpty();
    }
  }
}
