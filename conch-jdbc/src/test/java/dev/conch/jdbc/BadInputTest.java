package dev.conch.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.conch.InvalidArgumentException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Bad input to the fence fails with the bad value and what is accepted, and writes nothing. */
@Timeout(30)
class BadInputTest {

  private final String url = "jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
  private final JdbcFence fence = JdbcFence.create();

  @BeforeEach
  void createTable() throws SQLException {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      s.execute(FenceDialect.H2.createTableStatement(JdbcFence.DEFAULT_TABLE));
    }
  }

  @ParameterizedTest
  @NullSource
  @ValueSource(
      strings = {"", "conch fence", "1fence", "a.b.c", "fence;drop", "\"fence\"", "fence.", "é"})
  void aTableNameThatIsNoIdentifierIsRefused(String table) {
    assertThatThrownBy(() -> JdbcFence.forTable(table))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("fence table '" + table + "'")
        .hasMessageContaining("an SQL identifier");
  }

  @Test
  void aTableNameLongerThan63CharactersIsRefused() {
    String table = "t".repeat(64);
    assertThatThrownBy(() -> JdbcFence.forTable(table))
        .hasMessageContaining(table)
        .hasMessageContaining("1 to 63");
  }

  @Test
  void aSchemaQualifiedTableWorks() throws SQLException {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA billing");
      s.execute(FenceDialect.H2.createTableStatement("billing.fence"));
      JdbcFence billing = JdbcFence.forTable("billing.fence").withDialect(FenceDialect.H2);
      c.setAutoCommit(false);
      billing.check(c, "invoices", 3, "me");
      c.commit();
      assertThat(billing.currentToken(c, "invoices")).hasValue(3);
      assertThat(fence.currentToken(c, "invoices")).isEmpty();
    }
  }

  @ParameterizedTest
  @NullSource
  @ValueSource(strings = {"", "a/b", "a b", "tab\there"})
  void anOfficeConchDoesNotAcceptIsRefusedAndNothingIsWritten(String office) throws SQLException {
    try (Connection c = begin()) {
      assertThatThrownBy(() -> fence.check(c, office, 5, "me"))
          .isInstanceOf(InvalidArgumentException.class)
          .hasMessageContaining("office '" + office + "'")
          .hasMessageContaining("1 to 128 characters");
      c.commit();
      assertThat(rows(c)).isZero();
    }
  }

  @Test
  void anOfficeOfMoreThan128CharactersIsRefused() throws SQLException {
    try (Connection c = begin()) {
      assertThatThrownBy(() -> fence.check(c, "o".repeat(129), 5, "me"))
          .isInstanceOf(InvalidArgumentException.class);
      assertThat(rows(c)).isZero();
    }
  }

  @ParameterizedTest
  @ValueSource(longs = {0, -1, Long.MIN_VALUE})
  void aTokenBelowOneIsRefusedAndNothingIsWritten(long token) throws SQLException {
    try (Connection c = begin()) {
      assertThatThrownBy(() -> fence.check(c, "billing", token, "me"))
          .isInstanceOf(InvalidArgumentException.class)
          .hasMessageContaining("fencing token '" + token + "'")
          .hasMessageContaining("1 or more");
      c.commit();
      assertThat(rows(c)).isZero();
    }
  }

  @Test
  void aMissingOrTooLongHolderIsRefused() throws SQLException {
    try (Connection c = begin()) {
      assertThatThrownBy(() -> fence.check(c, "billing", 5, null))
          .hasMessageContaining("holder 'null'")
          .hasMessageContaining("up to 255 characters");
      assertThatThrownBy(() -> fence.check(c, "billing", 5, "h".repeat(256)))
          .hasMessageContaining("up to 255 characters");
      assertThat(rows(c)).isZero();
    }
  }

  @Test
  void anUnsupportedDatabaseIsNamed() {
    DatabaseMetaData oracle =
        (DatabaseMetaData)
            Proxy.newProxyInstance(
                DatabaseMetaData.class.getClassLoader(),
                new Class<?>[] {DatabaseMetaData.class},
                (proxy, method, args) ->
                    method.getName().equals("getDatabaseProductName") ? "Oracle" : null);
    assertThatThrownBy(() -> FenceDialect.of(oracle))
        .isInstanceOf(SQLFeatureNotSupportedException.class)
        .hasMessageContaining("'Oracle'")
        .hasMessageContaining("PostgreSQL, MySQL, MariaDB and H2");
  }

  @Test
  void everyDialectShipsItsSchemaScript() {
    for (FenceDialect dialect : FenceDialect.values()) {
      assertThat(FenceDialect.class.getClassLoader().getResource(dialect.schemaLocation()))
          .as(dialect.schemaLocation())
          .isNotNull();
      assertThat(dialect.createTableStatement("my_fence"))
          .startsWith("CREATE TABLE IF NOT EXISTS my_fence (")
          .doesNotContain(JdbcFence.DEFAULT_TABLE)
          .doesNotEndWith(";");
    }
  }

  @ParameterizedTest
  @NullSource
  @ValueSource(strings = {"", "conch fence", "1table", "a.b.c", "t;drop", "\"t\"", "é"})
  void aFenceColumnOnATableThatIsNoIdentifierIsRefused(String table) {
    for (FenceDialect dialect : FenceDialect.values()) {
      assertThatThrownBy(
              () -> FenceSchema.create().columnTrigger(dialect, table, "fence_token", "billing"))
          .isInstanceOf(InvalidArgumentException.class)
          .hasMessageContaining("table '" + table + "'")
          .hasMessageContaining("an SQL identifier");
    }
  }

  @ParameterizedTest
  @NullSource
  @ValueSource(
      strings = {
        "",
        "fence token",
        "1col",
        "a.b",
        "c;drop",
        "c'",
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
      })
  void aFenceColumnThatIsNoIdentifierIsRefused(String column) {
    assertThatThrownBy(
            () ->
                FenceSchema.create()
                    .columnTrigger(FenceDialect.MARIADB, "invoices", column, "billing"))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("token column '" + column + "'")
        .hasMessageContaining("an SQL identifier of 1 to 63");
    assertThatThrownBy(
            () ->
                FenceSchema.create()
                    .officeColumnTrigger(FenceDialect.H2, "invoices", "fence_token", column))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("office column '" + column + "'");
  }

  @ParameterizedTest
  @NullSource
  @ValueSource(strings = {"", "a/b", "a b", "tab\there"})
  void aFenceColumnForAnOfficeConchDoesNotAcceptIsRefused(String office) {
    assertThatThrownBy(
            () ->
                FenceSchema.create()
                    .columnTrigger(FenceDialect.POSTGRESQL, "invoices", "fence_token", office))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("office '" + office + "'")
        .hasMessageContaining("1 to 128 characters");
  }

  @Test
  void aFenceTableThatIsNoIdentifierIsRefusedByTheSchema() {
    assertThatThrownBy(() -> FenceSchema.forTable("conch fence"))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("fence table 'conch fence'");
  }

  @Test
  void everyDialectShipsItsGuardScriptAndNamesAnotherFenceTable() {
    for (FenceDialect dialect : FenceDialect.values()) {
      assertThat(FenceDialect.class.getClassLoader().getResource(dialect.guardLocation()))
          .as(dialect.guardLocation())
          .isNotNull();
      assertThat(FenceSchema.create().guard(dialect)).isNotEmpty();
      assertThat(FenceSchema.forTable("billing.fence").guard(dialect))
          .allSatisfy(
              statement ->
                  assertThat(statement)
                      .contains("billing.fence")
                      .doesNotContain(JdbcFence.DEFAULT_TABLE)
                      .doesNotEndWith(";;"));
      assertThat(
              FenceSchema.forTable("billing.fence")
                  .columnTrigger(dialect, "invoices", "fence_token", "billing"))
          .allSatisfy(statement -> assertThat(statement).doesNotContain(JdbcFence.DEFAULT_TABLE));
    }
  }

  @Test
  void anOfficeWithQuotesAndBackslashesIsWrittenAsALiteralThatMeansIt() throws SQLException {
    String office = "it's\\a;--test";
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      FenceSchema.create().installGuard(c);
      s.execute("CREATE TABLE quoted (fence_token BIGINT)");
      FenceSchema.create().installColumnTrigger(c, "quoted", "fence_token", office);
      s.executeUpdate("INSERT INTO quoted (fence_token) VALUES (3)");
      assertThat(fence.currentToken(c, office)).hasValue(3);
    }
  }

  private Connection begin() throws SQLException {
    Connection c = DriverManager.getConnection(url);
    c.setAutoCommit(false);
    return c;
  }

  private static int rows(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        var rows = s.executeQuery("SELECT count(*) FROM conch_fence")) {
      rows.next();
      return rows.getInt(1);
    }
  }

  @Test
  void aRaiseWithABadOfficeTokenOrTimeoutIsRefusedAndWritesNothing() throws SQLException {
    try (Connection c = DriverManager.getConnection(url)) {
      assertThatThrownBy(() -> fence.raise(c, "bad office", 7, "h"))
          .isInstanceOf(InvalidArgumentException.class)
          .hasMessageContaining("bad office");
      assertThatThrownBy(() -> fence.raise(c, "billing", 0, "h"))
          .isInstanceOf(InvalidArgumentException.class)
          .hasMessageContaining("fencing token '0'");
      assertThatThrownBy(
              () ->
                  fence.raise(
                      c,
                      new dev.conch.Leadership(
                          "billing", 7, 0, dev.conch.Holder.of("billing", "h", 1, null, "a")),
                      java.time.Duration.ofSeconds(-1)))
          .isInstanceOf(InvalidArgumentException.class)
          .hasMessageContaining("timeout 'PT-1S'")
          .hasMessageContaining("zero (none) or a positive duration");
      assertThat(c.getAutoCommit()).isTrue();
      assertThat(fence.currentToken(c, "billing")).isEmpty();
    }
  }
}
