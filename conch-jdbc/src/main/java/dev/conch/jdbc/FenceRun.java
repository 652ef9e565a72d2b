package dev.conch.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** One check of the fence on one connection: the statements in the order that keeps it safe. */
final class FenceRun {

  private static final String UNIQUE_VIOLATION = "23505";
  private static final String SERIALIZATION_FAILURE = "40001";

  private final Connection connection;
  private final FenceStatements sql;
  private final String office;
  private final long token;
  private final String holder;

  FenceRun(Connection connection, FenceStatements sql, String office, long token, String holder) {
    this.connection = connection;
    this.sql = sql;
    this.office = office;
    this.token = token;
    this.holder = holder;
  }

  void run() throws SQLException {
    if (holds() || raise()) {
      return;
    }
    if (!sql.raiseInserts && (insert() || raise())) {
      return;
    }
    refuse();
  }

  /** The steady state: the row is at this token; it is locked (shared where possible). */
  private boolean holds() throws SQLException {
    try (PreparedStatement holds = connection.prepareStatement(sql.holds)) {
      holds.setString(1, office);
      holds.setLong(2, token);
      try (ResultSet row = holds.executeQuery()) {
        return row.next();
      }
    }
  }

  /** A new term: raises the row to this token unless it holds a newer one (locks it). */
  private boolean raise() throws SQLException {
    try (PreparedStatement raise = connection.prepareStatement(sql.raise)) {
      if (sql.raiseInserts) {
        raise.setString(1, office);
        raise.setLong(2, token);
        raise.setString(3, holder);
      } else {
        raise.setLong(1, token);
        raise.setString(2, holder);
        raise.setString(3, office);
        raise.setLong(4, token);
      }
      return raise.executeUpdate() > 0;
    }
  }

  /** The office's first row; false when another transaction inserted it first. */
  private boolean insert() throws SQLException {
    try (PreparedStatement insert = connection.prepareStatement(sql.insert)) {
      insert.setString(1, office);
      insert.setLong(2, token);
      insert.setString(3, holder);
      return insert.executeUpdate() > 0;
    } catch (SQLException e) {
      // H2 only (the others never raise a duplicate key here): the statement alone failed.
      if (UNIQUE_VIOLATION.equals(e.getSQLState())) {
        return false;
      }
      throw e;
    }
  }

  /** Nothing matched: reads the row under an exclusive lock to say why, or to let it pass. */
  private void refuse() throws SQLException {
    try (PreparedStatement read = connection.prepareStatement(sql.read)) {
      read.setString(1, office);
      try (ResultSet row = read.executeQuery()) {
        if (!row.next()) {
          throw new SQLException(
              "the fence row of office '"
                  + office
                  + "' exists but this transaction cannot see it (its snapshot is older than"
                  + " the row): roll back and retry",
              SERIALIZATION_FAILURE);
        }
        long current = row.getLong(1);
        if (current <= token) {
          // An update count of 0 for a row that matched (a driver that counts changed rows)
          // lands here; the row is now locked exclusively at no newer token, which is a pass.
          return;
        }
        throw new StaleTokenException(office, token, current, row.getString(2));
      }
    }
  }
}
