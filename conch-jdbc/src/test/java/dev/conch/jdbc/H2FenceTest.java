package dev.conch.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class H2FenceTest {

  private final String url = "jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
  private final JdbcFence fence = JdbcFence.create();

  @BeforeEach
  void createTable() throws SQLException {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      s.execute(FenceDialect.H2.createTableStatement(JdbcFence.DEFAULT_TABLE));
    }
  }

  @Test
  void aNewerTokenFencesTheOlderOut() throws SQLException {
    try (Connection c = DriverManager.getConnection(url)) {
      c.setAutoCommit(false);
      fence.check(c, "billing", 5, "a");
      c.commit();
      fence.check(c, "billing", 5, "a");
      c.commit();
      fence.check(c, "billing", 7, "b");
      c.commit();
      assertThatThrownBy(() -> fence.check(c, "billing", 5, "a"))
          .isInstanceOf(StaleTokenException.class)
          .hasMessageContaining("token 5")
          .hasMessageContaining("token 7");
      c.rollback();
      assertThat(fence.currentToken(c, "billing")).hasValue(7);
    }
  }
}
