package dev.conch.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/** What the H2 triggers share: where a column is in the rows H2 hands a trigger. */
final class H2Rows {

  private H2Rows() {}

  /** The 0-based index of {@code column} in the rows of {@code schema.table}. */
  static int columnIndex(Connection connection, String schema, String table, String column)
      throws SQLException {
    try (PreparedStatement read =
        connection.prepareStatement(
            "SELECT ORDINAL_POSITION FROM INFORMATION_SCHEMA.COLUMNS"
                + " WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND UPPER(COLUMN_NAME) = ?")) {
      read.setString(1, schema);
      read.setString(2, table);
      read.setString(3, column.toUpperCase(Locale.ROOT));
      try (ResultSet row = read.executeQuery()) {
        if (!row.next()) {
          throw new SQLException(
              "the table " + schema + "." + table + " has no column " + column,
              FenceSchema.MISSING_TOKEN_SQLSTATE);
        }
        return row.getInt(1) - 1;
      }
    }
  }

  /** The session's value of the user variable {@code @name}, or null. */
  static @Nullable String variable(Connection connection, String name) throws SQLException {
    try (PreparedStatement read = connection.prepareStatement("SELECT @" + name);
        ResultSet row = read.executeQuery()) {
      return row.next() ? row.getString(1) : null;
    }
  }
}
