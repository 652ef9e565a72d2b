package dev.conch.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;

/**
 * One check or raise of the fence on one connection: the statements in the order that keeps it
 * safe.
 */
final class FenceRun {

  private static final String UNIQUE_VIOLATION = "23505";
  static final String SERIALIZATION_FAILURE = "40001";

  private final Connection connection;
  private final FenceStatements sql;
  private final String office;
  private final long token;
  private final String holder;
  private final int timeoutSeconds; // 0: none

  FenceRun(
      Connection connection,
      FenceStatements sql,
      String office,
      long token,
      String holder,
      int timeoutSeconds) {
    this.connection = connection;
    this.sql = sql;
    this.office = office;
    this.token = token;
    this.holder = holder;
    this.timeoutSeconds = timeoutSeconds;
  }

  /** Inside the caller's transaction: holds the fence at the token, raising the row if older. */
  void check() throws SQLException {
    Hold hold = hold();
    if (hold == Hold.HELD) {
      return;
    }
    // A newer token was refused in hold(). MOVED: the row was at the token when the lock was
    // taken and is not at the read after it; no raise then, which would wait for the other
    // holders of the lock this transaction already holds.
    if (hold == Hold.NOT_AT_TOKEN && raiseHere()) {
      return;
    }
    throw refusal();
  }

  /**
   * In a transaction that does nothing else: raises the row to the token, or inserts it; returns
   * the token the row held before (0 when there was no row).
   */
  long raiseAlone() throws SQLException {
    refuseMultiPrimary();
    if (sql.raiseInserts) {
      try (PreparedStatement raise = prepare(sql.raise)) {
        int i = 1;
        raise.setString(i++, office); // the lock
        raise.setString(i++, office); // the earlier token
        setRow(raise, i);
        try (ResultSet returned = upserted(raise)) {
          if (returned.next()) {
            long previous = returned.getLong(1);
            return returned.wasNull() ? 0 : previous;
          }
        }
      }
      throw refusal();
    }
    try (PreparedStatement read = prepare(sql.previous)) {
      read.setString(1, office);
      try (ResultSet row = read.executeQuery()) {
        if (row.next()) {
          long previous = row.getLong(1);
          if (previous > token || !update()) {
            throw refusal();
          }
          return previous;
        }
      }
    }
    if (insert() || update()) {
      return 0;
    }
    throw refusal();
  }

  private enum Hold {
    HELD,
    NOT_AT_TOKEN,
    MOVED
  }

  /**
   * The steady state: the row is at this token, and the fence is held until the transaction ends.
   */
  private Hold hold() throws SQLException {
    try (PreparedStatement hold = prepare(sql.hold)) {
      if (!sql.holdLocksFirst) {
        hold.setString(1, office);
        try (ResultSet row = hold.executeQuery()) {
          if (!row.next()) {
            return Hold.NOT_AT_TOKEN;
          }
          long current = row.getLong(1);
          if (current > token) {
            throw new StaleTokenException(office, token, current, row.getString(2));
          }
          return current == token ? Hold.HELD : Hold.NOT_AT_TOKEN;
        }
      }
      int i = 1;
      hold.setString(i++, office); // the lock's key
      hold.setString(i++, office);
      hold.setLong(i++, token);
      hold.setString(i++, office); // the row read under REPEATABLE READ and SERIALIZABLE
      hold.setLong(i++, token);
      hold.setString(i, office);
      hold.execute();
      boolean locked;
      try (ResultSet lock = hold.getResultSet()) {
        locked = lock.next();
      }
      if (!hold.getMoreResults()) {
        throw new SQLException("the fence's read returned no result", "XX000");
      }
      try (ResultSet row = hold.getResultSet()) {
        if (!row.next()) {
          return Hold.NOT_AT_TOKEN;
        }
        long current = row.getLong(1);
        if (current > token) {
          throw new StaleTokenException(office, token, current, row.getString(2));
        }
        if (!locked) {
          return Hold.NOT_AT_TOKEN;
        }
        return current == token ? Hold.HELD : Hold.MOVED;
      }
    }
  }

  /** A new term inside the caller's transaction: raises (or inserts) the row to this token. */
  private boolean raiseHere() throws SQLException {
    refuseMultiPrimary();
    if (sql.raiseInserts) {
      try (PreparedStatement raise = prepare(sql.raise)) {
        raise.setString(1, office);
        raise.setString(2, office);
        setRow(raise, 3);
        try (ResultSet returned = upserted(raise)) {
          return returned.next();
        }
      }
    }
    return update() || insert() || update();
  }

  private boolean update() throws SQLException {
    try (PreparedStatement raise = prepare(sql.raise)) {
      raise.setLong(1, token);
      raise.setString(2, holder);
      raise.setString(3, office);
      raise.setLong(4, token);
      return raise.executeUpdate() > 0;
    }
  }

  /** The office's first row; false when another transaction inserted it first. */
  private boolean insert() throws SQLException {
    String insert = sql.insert;
    if (insert == null) {
      return false;
    }
    try (PreparedStatement statement = prepare(insert)) {
      setRow(statement, 1);
      return statement.executeUpdate() > 0;
    } catch (SQLException e) {
      // H2 only (the others never raise a duplicate key here): the statement alone failed.
      if (UNIQUE_VIOLATION.equals(e.getSQLState())) {
        return false;
      }
      throw e;
    }
  }

  private void setRow(PreparedStatement statement, int first) throws SQLException {
    statement.setString(first, office);
    statement.setLong(first + 1, token);
    statement.setString(first + 2, holder);
  }

  /**
   * Nothing matched: reads the row to name the newer token. The read never lets the transaction
   * pass: a row at no newer token here moved while the check ran, and the transaction retries.
   */
  private SQLException refusal() throws SQLException {
    try (PreparedStatement read = prepare(sql.read)) {
      read.setString(1, office);
      try (ResultSet row = read.executeQuery()) {
        if (!row.next()) {
          return new SQLException(
              "the fence row of office '"
                  + office
                  + "' is not visible to this transaction (its snapshot is older than the row, or"
                  + " the row was deleted): roll back and retry",
              SERIALIZATION_FAILURE);
        }
        long current = row.getLong(1);
        if (current > token) {
          throw new StaleTokenException(office, token, current, row.getString(2));
        }
        return new SQLException(
            "the fence row of office '"
                + office
                + "' moved while the check ran (it holds token "
                + current
                + ", offered "
                + token
                + "): roll back and retry",
            SERIALIZATION_FAILURE);
      }
    }
  }

  /** Refuses a cluster whose every node takes its own row locks: the fence would not hold there. */
  private void refuseMultiPrimary() throws SQLException {
    String query = sql.multiPrimary;
    if (query == null) {
      return;
    }
    long answer;
    try (PreparedStatement check = prepare(query);
        ResultSet row = check.executeQuery()) {
      answer = row.next() ? row.getLong(1) : 0;
    } catch (SQLException e) {
      return; // the variable or view does not exist: no such cluster
    }
    if (answer != 0) {
      throw new SQLFeatureNotSupportedException(
          "the conch fence of office '"
              + office
              + "' does not hold on a multi-primary cluster ("
              + (query.contains("wsrep")
                  ? "Galera, wsrep_on=ON"
                  : "Group Replication multi-primary")
              + "): each node takes its own row locks, so a stale leader writing through another"
              + " node is not stopped; fence against a single primary");
    }
  }

  private PreparedStatement prepare(String statement) throws SQLException {
    PreparedStatement prepared = connection.prepareStatement(statement);
    if (timeoutSeconds > 0) {
      prepared.setQueryTimeout(timeoutSeconds);
    }
    return prepared;
  }

  /** Runs the lock and the upsert; returns the upsert's RETURNING rows (none: not raised). */
  private static ResultSet upserted(PreparedStatement raise) throws SQLException {
    raise.execute(); // the advisory lock's row
    if (!raise.getMoreResults()) {
      throw new SQLException("the fence's raise returned no result", "XX000");
    }
    return raise.getResultSet();
  }
}
