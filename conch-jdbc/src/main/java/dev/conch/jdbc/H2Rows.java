package dev.conch.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * What the H2 triggers read of H2 itself: where a column is in the rows H2 hands a trigger, a
 * trigger's remark, a session's variable.
 */
final class H2Rows {

  private H2Rows() {}

  /** The 0-based index of {@code column} in the rows of {@code schema.table}. */
  static int columnIndex(Connection connection, String schema, String table, String column)
      throws SQLException {
    String position =
        first(
            connection,
            "SELECT ORDINAL_POSITION FROM INFORMATION_SCHEMA.COLUMNS"
                + " WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND UPPER(COLUMN_NAME) = ?",
            schema,
            table,
            column.toUpperCase(Locale.ROOT));
    if (position == null) {
      throw new SQLException(
          "the table " + schema + "." + table + " has no column " + column,
          FenceSchema.MISSING_TOKEN_SQLSTATE);
    }
    return Integer.parseInt(position) - 1;
  }

  /** The remark of the trigger {@code schema.trigger}, or null. */
  static @Nullable String triggerRemark(Connection connection, String schema, String trigger)
      throws SQLException {
    return first(
        connection,
        "SELECT REMARKS FROM INFORMATION_SCHEMA.TRIGGERS"
            + " WHERE TRIGGER_SCHEMA = ? AND TRIGGER_NAME = ?",
        schema,
        trigger);
  }

  /** The session's value of the user variable {@code @name}, or null. */
  static @Nullable String variable(Connection connection, String name) throws SQLException {
    return first(connection, "SELECT @" + name);
  }

  /** The first column of the first row {@code query} finds, as text; null without a row. */
  private static @Nullable String first(Connection connection, String query, String... parameters)
      throws SQLException {
    try (PreparedStatement read = connection.prepareStatement(query)) {
      for (int i = 0; i < parameters.length; i++) {
        read.setString(i + 1, parameters[i]);
      }
      try (ResultSet row = read.executeQuery()) {
        return row.next() ? row.getString(1) : null;
      }
    }
  }
}
