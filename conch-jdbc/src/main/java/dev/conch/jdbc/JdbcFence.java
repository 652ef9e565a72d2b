package dev.conch.jdbc;

import dev.conch.Holder;
import dev.conch.InvalidArgumentException;
import dev.conch.Leadership;
import dev.conch.Setting;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The fence in the user's own database: {@link #check} runs inside the caller's transaction, on the
 * caller's connection, and lets the transaction go on only while the office's row in the fence
 * table holds no newer token than the one offered; {@link #raise} begins a term, in a transaction
 * of its own.
 *
 * <p>The guarantees: a transaction of a stale leader that passed the fence either commits entirely
 * before the newer leader's raise ends, or fails (and must roll back); and a transaction that
 * begins after the raise sees everything the older terms committed. Only writes of transactions
 * that went through the fence are protected.
 *
 * <pre>{@code
 * JdbcFence fence = JdbcFence.create();          // table conch_fence
 * try (Connection c = dataSource.getConnection()) {
 *   fence.raise(c, leadership, Duration.ZERO);    // once, when the term begins
 * }
 * try (Connection c = dataSource.getConnection()) {
 *   c.setAutoCommit(false);
 *   ... the transaction's reads and writes ...
 *   fence.check(c, leadership);                   // throws StaleTokenException when stale
 *   c.commit();
 * }
 * }</pre>
 *
 * <p>In the steady state the check is one round trip per transaction and takes no row lock on
 * PostgreSQL at READ COMMITTED (a shared advisory lock, then a read); a shared row lock on
 * MySQL/MariaDB; a row lock on H2. A serialization failure of the database (SQLState {@code 40001},
 * {@code 40P01}, an InnoDB deadlock) is thrown as it is: the transaction did not pass the fence and
 * may be retried.
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
    check(connection, leadership, Duration.ZERO);
  }

  /**
   * As {@link #check(Connection, Leadership)}, with a timeout on each of the fence's statements
   * ({@link java.sql.Statement#setQueryTimeout}, rounded up to whole seconds): a transaction's
   * remaining time, for example.
   *
   * @param timeout the longest a statement of the fence may run; zero for none
   */
  public void check(Connection connection, Leadership leadership, Duration timeout)
      throws SQLException {
    Objects.requireNonNull(leadership, "leadership");
    check(
        connection,
        leadership.office(),
        leadership.token(),
        holderText(leadership.holder()),
        timeout);
  }

  /**
   * Fences the caller's transaction: runs on {@code connection}, inside its open transaction, and
   * returns only when {@code token} is the newest token the fence table has seen for {@code
   * office}, with the fence held until the transaction ends (a newer leader's raise waits for it).
   * Nothing is committed here. When the row is at an older token (this term's first transaction),
   * it is raised in this transaction; {@link #raise} does that in a transaction of its own, which
   * is what lets the new term read everything the old one committed.
   *
   * <p>Where to call it: just before {@code commit()} holds whatever ran before in the transaction,
   * even a statement whose failure the caller caught (InnoDB and H2 roll the whole transaction back
   * on a deadlock and go on in a new one); at the start it also saves a stale leader its work. Both
   * is safest, at one round trip each.
   *
   * @param connection the caller's connection, with autocommit off
   * @param office the office, as conch accepts it
   * @param token the term's fencing token, 1 or more
   * @param holder who writes, for the row and for a stale writer's message; up to {@value
   *     #MAX_HOLDER_LENGTH} characters
   * @throws StaleTokenException when the table holds a newer token: roll the transaction back
   * @throws InvalidArgumentException for a bad office, token or holder, or a connection in
   *     autocommit mode (a fence outside a transaction protects nothing); nothing is written then
   * @throws FenceTimeoutException when the fence's lock was not granted in time
   * @throws SQLException when the database fails, the fence table is missing ({@link
   *     FenceTableMissingException}, naming it and the schema script), or the database reports a
   *     serialization failure ({@code 40001}): the transaction did not pass the fence
   */
  public void check(Connection connection, String office, long token, String holder)
      throws SQLException {
    check(connection, office, token, holder, Duration.ZERO);
  }

  private void check(
      Connection connection, String office, long token, String holder, Duration timeout)
      throws SQLException {
    requireArguments(connection, office, token, holder, timeout);
    if (connection.getAutoCommit()) {
      throw new InvalidArgumentException(
          "connection",
          "autocommit on",
          "a connection inside a transaction (setAutoCommit(false)): a fence outside a"
              + " transaction protects nothing");
    }
    FenceDialect spoken = spoken(connection);
    try {
      run(connection, spoken, office, token, holder, timeout).check();
    } catch (SQLException e) {
      throw translate(e, spoken, office);
    }
  }

  /**
   * Begins a term in the fence table: raises the office's row to {@code leadership}'s token (or
   * inserts the office's first row) in a short transaction of its own on {@code connection}, and
   * commits. It waits until every transaction that holds the fence at an older token has ended;
   * once it returns, no transaction of an older term can pass the fence, and a transaction that
   * begins after it sees everything the older terms committed. Run it when a term begins, before
   * its work reads the office's data.
   *
   * @param connection a connection outside any transaction (autocommit on); it is left so
   * @return the token the row held before: lower than the term's when an older term's row was
   *     raised, equal when this term had raised it already, 0 when there was no row
   * @throws StaleTokenException when the table holds a newer token
   * @throws InvalidArgumentException for a bad term, or a connection inside a transaction (the
   *     raise would commit the caller's work)
   * @throws FenceTimeoutException when the lock was not granted in time
   * @throws SQLException when the database fails (a serialization failure is retried twice first),
   *     the table is missing, or the database is a multi-primary cluster (Galera, Group
   *     Replication), where the fence does not hold
   */
  public long raise(Connection connection, Leadership leadership) throws SQLException {
    return raise(connection, leadership, Duration.ZERO);
  }

  /**
   * As {@link #raise(Connection, Leadership)}, with a timeout on each statement (zero for none).
   */
  public long raise(Connection connection, Leadership leadership, Duration timeout)
      throws SQLException {
    Objects.requireNonNull(leadership, "leadership");
    return raise(
        connection,
        leadership.office(),
        leadership.token(),
        holderText(leadership.holder()),
        timeout);
  }

  /**
   * As {@link #raise(Connection, Leadership)}, for a term given by its parts (as {@link
   * #check(Connection, String, long, String)} takes them).
   */
  public long raise(Connection connection, String office, long token, String holder)
      throws SQLException {
    return raise(connection, office, token, holder, Duration.ZERO);
  }

  private long raise(
      Connection connection, String office, long token, String holder, Duration timeout)
      throws SQLException {
    requireArguments(connection, office, token, holder, timeout);
    if (!connection.getAutoCommit()) {
      throw new InvalidArgumentException(
          "connection",
          "inside a transaction (autocommit off)",
          "a connection outside any transaction (autocommit on): the raise commits a transaction"
              + " of its own, which would commit the caller's work");
    }
    FenceDialect spoken = spoken(connection);
    int isolation = connection.getTransactionIsolation();
    connection.setAutoCommit(false);
    try {
      // READ COMMITTED: the raise reads the newest row after its lock, whatever the default is.
      if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
        connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      }
      for (int attempt = 1; ; attempt++) {
        try {
          long previous = run(connection, spoken, office, token, holder, timeout).raiseAlone();
          connection.commit();
          return previous;
        } catch (SQLException e) {
          connection.rollback();
          if (attempt >= 3 || !isRetryable(e)) {
            throw translate(e, spoken, office);
          }
        } catch (RuntimeException e) {
          connection.rollback();
          throw e;
        }
      }
    } finally {
      if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
        connection.setTransactionIsolation(isolation);
      }
      connection.setAutoCommit(true);
    }
  }

  /** The dialect this fence was given, else the one {@code connection} speaks. */
  private FenceDialect spoken(Connection connection) throws SQLException {
    return dialect != null ? dialect : FenceDialect.of(connection);
  }

  private FenceRun run(
      Connection connection,
      FenceDialect spoken,
      String office,
      long token,
      String holder,
      Duration timeout) {
    // Every dialect has its statements (the constructor makes them all).
    FenceStatements spokenStatements = Objects.requireNonNull(statements.get(spoken));
    long millis = timeout.toMillis();
    int seconds = (int) Math.min(Integer.MAX_VALUE, (millis + 999) / 1000);
    return new FenceRun(connection, spokenStatements, office, token, holder, seconds);
  }

  private static void requireArguments(
      Connection connection, String office, long token, String holder, Duration timeout) {
    Objects.requireNonNull(connection, "connection");
    Setting.OFFICE.require(office);
    if (token <= 0) {
      throw new InvalidArgumentException("fencing token", token, TOKEN_ACCEPTED);
    }
    if (holder == null || holder.length() > MAX_HOLDER_LENGTH) {
      throw new InvalidArgumentException(
          "holder", holder, "a text of up to " + MAX_HOLDER_LENGTH + " characters");
    }
    if (timeout == null || timeout.isNegative()) {
      throw new InvalidArgumentException("timeout", timeout, "zero (none) or a positive duration");
    }
  }

  /** Whether the database failed the transaction in a way a retry may pass. */
  static boolean isRetryable(SQLException e) {
    String state = e.getSQLState();
    return "40001".equals(state) || "40P01".equals(state) || e.getErrorCode() == 1213;
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
      throw missingTable(e, spoken(connection));
    }
  }

  private SQLException translate(SQLException e, FenceDialect spoken, String office) {
    if (e instanceof FenceTimeoutException || e instanceof FenceTableMissingException) {
      return e;
    }
    if (FenceTimeoutException.isTimeout(e)) {
      return new FenceTimeoutException(office, e);
    }
    return missingTable(e, spoken);
  }

  private SQLException missingTable(SQLException e, FenceDialect spoken) {
    if (e.getSQLState() == null || !UNDEFINED_TABLE.contains(e.getSQLState())) {
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
