package dev.conch.jdbc;

import dev.conch.Holder;
import dev.conch.InvalidArgumentException;
import dev.conch.Leadership;
import dev.conch.Setting;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The fence in the user's own database: {@link #check} runs inside the caller's transaction, on the
 * caller's connection, and lets the transaction go on only while the office's row in the fence
 * table holds no newer token than the one offered. It raises the row to the offered token when it
 * is the first transaction of a new term.
 *
 * <p>The guarantee: a transaction of a stale leader either commits entirely before the newer
 * leader's first fenced transaction commits, or fails (and must roll back). Only writes of
 * transactions that went through the fence are protected.
 *
 * <pre>{@code
 * JdbcFence fence = JdbcFence.create();          // table conch_fence
 * try (Connection c = dataSource.getConnection()) {
 *   c.setAutoCommit(false);
 *   fence.check(c, leadership);                   // throws StaleTokenException when stale
 *   ... the transaction's writes ...
 *   c.commit();
 * }
 * }</pre>
 *
 * <p>In the steady state the fence is one statement per transaction (a locking read of the office's
 * row); a new term's first transaction raises the row, and the first transaction of an office
 * inserts it. A serialization failure of the database (SQLState {@code 40001}, PostgreSQL under
 * REPEATABLE READ or SERIALIZABLE, an InnoDB deadlock) is thrown as it is: the transaction did not
 * pass the fence and may be retried.
 *
 * <p>Immutable and thread-safe; one instance serves every connection.
 */
public final class JdbcFence {

  /** The default table name: {@value}. */
  public static final String DEFAULT_TABLE = "conch_fence";

  /** The longest holder text the fence table stores. */
  public static final int MAX_HOLDER_LENGTH = 255;

  private static final String TOKEN_ACCEPTED =
      "a fencing token of 1 or more: the term's token (Leadership.token(), CONCH_REV)";

  // Missing table: PostgreSQL, MySQL/MariaDB, H2 (42S04/42104: a database with no table at all).
  private static final Set<String> UNDEFINED_TABLE =
      Set.of("42P01", "42S02", "42102", "42S04", "42104");

  private final String table;
  private final @Nullable FenceDialect dialect; // null: detect per connection
  private final Map<FenceDialect, FenceStatements> statements = new EnumMap<>(FenceDialect.class);

  private JdbcFence(String table, @Nullable FenceDialect dialect) {
    this.table = FenceTable.require(table);
    this.dialect = dialect;
    for (FenceDialect each : FenceDialect.values()) {
      statements.put(each, FenceStatements.of(each, this.table));
    }
  }

  /** A fence on the table {@value #DEFAULT_TABLE}, detecting the dialect of each connection. */
  public static JdbcFence create() {
    return new JdbcFence(DEFAULT_TABLE, null);
  }

  /**
   * A fence on {@code table}, detecting the dialect of each connection.
   *
   * @param table an SQL identifier of 1 to 63 letters, digits and '_', optionally schema-qualified
   *     ({@code billing.conch_fence}); it is written into the statements as it is
   * @throws InvalidArgumentException when {@code table} is not one
   */
  public static JdbcFence forTable(String table) {
    return new JdbcFence(table, null);
  }

  /** The same fence, speaking {@code dialect} to every connection instead of detecting it. */
  public JdbcFence withDialect(FenceDialect dialect) {
    return new JdbcFence(table, Objects.requireNonNull(dialect, "dialect"));
  }

  /** The fence table's name. */
  public String table() {
    return table;
  }

  /**
   * Fences the caller's transaction for the term {@code leadership}: its office, its token, and its
   * holder's id.
   *
   * @see #check(Connection, String, long, String)
   */
  public void check(Connection connection, Leadership leadership) throws SQLException {
    Objects.requireNonNull(leadership, "leadership");
    check(connection, leadership.office(), leadership.token(), holderText(leadership.holder()));
  }

  /**
   * Fences the caller's transaction: runs on {@code connection}, inside its open transaction, and
   * returns only when {@code token} is the newest token the fence table has seen for {@code
   * office}, with the office's row locked until the transaction ends. Nothing is committed here.
   *
   * @param connection the caller's connection, with autocommit off
   * @param office the office, as conch accepts it
   * @param token the term's fencing token, 1 or more
   * @param holder who writes, for the row and for a stale writer's message; up to {@value
   *     #MAX_HOLDER_LENGTH} characters
   * @throws StaleTokenException when the table holds a newer token: roll the transaction back
   * @throws InvalidArgumentException for a bad office, token or holder, or a connection in
   *     autocommit mode (a fence outside a transaction protects nothing); nothing is written then
   * @throws SQLException when the database fails, the fence table is missing ({@link
   *     FenceTableMissingException}, naming it and the schema script), or the database reports a
   *     serialization failure ({@code 40001}): the transaction did not pass the fence
   */
  public void check(Connection connection, String office, long token, String holder)
      throws SQLException {
    Objects.requireNonNull(connection, "connection");
    Setting.OFFICE.require(office);
    if (token <= 0) {
      throw new InvalidArgumentException("fencing token", token, TOKEN_ACCEPTED);
    }
    if (holder == null || holder.length() > MAX_HOLDER_LENGTH) {
      throw new InvalidArgumentException(
          "holder", holder, "a text of up to " + MAX_HOLDER_LENGTH + " characters");
    }
    if (connection.getAutoCommit()) {
      throw new InvalidArgumentException(
          "connection",
          "autocommit on",
          "a connection inside a transaction (setAutoCommit(false)): a fence outside a"
              + " transaction protects nothing");
    }
    FenceDialect spoken = dialect != null ? dialect : FenceDialect.of(connection);
    try {
      // Every dialect has its statements (the constructor makes them all).
      FenceStatements spokenStatements = Objects.requireNonNull(statements.get(spoken));
      new FenceRun(connection, spokenStatements, office, token, holder).run();
    } catch (SQLException e) {
      throw missingTable(e, spoken);
    }
  }

  /**
   * The token the fence table holds for {@code office}, read without a lock in the connection's
   * current transaction (or on its own in autocommit mode); empty when no transaction fenced the
   * office yet.
   *
   * @throws InvalidArgumentException for a bad office
   * @throws SQLException when the database fails or the table is missing
   */
  public OptionalLong currentToken(Connection connection, String office) throws SQLException {
    Objects.requireNonNull(connection, "connection");
    Setting.OFFICE.require(office);
    try (PreparedStatement read =
        connection.prepareStatement("SELECT token FROM " + table + " WHERE office = ?")) {
      read.setString(1, office);
      try (ResultSet row = read.executeQuery()) {
        return row.next() ? OptionalLong.of(row.getLong(1)) : OptionalLong.empty();
      }
    } catch (SQLException e) {
      throw missingTable(e, dialect != null ? dialect : FenceDialect.of(connection));
    }
  }

  private SQLException missingTable(SQLException e, FenceDialect spoken) {
    if (!UNDEFINED_TABLE.contains(e.getSQLState())) {
      return e;
    }
    return new FenceTableMissingException(
        "the fence table '"
            + table
            + "' does not exist: create it with the script "
            + spoken.schemaLocation()
            + " in conch-jdbc's jar (FenceDialect."
            + spoken
            + ".createTableStatement(\""
            + table
            + "\") for this name)",
        e);
  }

  private static String holderText(@Nullable Holder holder) {
    if (holder == null) {
      return "";
    }
    String text = holder.id() != null ? holder.id() : holder.raw();
    if (text == null) {
      return "";
    }
    return text.length() > MAX_HOLDER_LENGTH ? text.substring(0, MAX_HOLDER_LENGTH) : text;
  }

  @Override
  public String toString() {
    return "JdbcFence[table=" + table + (dialect == null ? "" : ", dialect=" + dialect) + "]";
  }
}
