package dev.conch.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import org.h2.api.Trigger;
import org.jspecify.annotations.Nullable;

/**
 * The guard of the fence table on H2 (the script {@code dev/conch/jdbc/guard-h2.sql}): refuses a
 * {@code DELETE} of an office's row unless the session's {@code @conch_retire_office} names that
 * office, and an {@code UPDATE} that lowers a token or changes an office (SQLState {@value
 * FenceSchema#GUARD_SQLSTATE}). Needs H2 on the class path; conch-jdbc does not bring it.
 */
public final class H2FenceGuard implements Trigger {

  private volatile int office = 0;
  private volatile int token = 1;

  /** Created by H2 for the trigger. */
  public H2FenceGuard() {}

  @Override
  public void init(
      Connection connection,
      String schemaName,
      String triggerName,
      String tableName,
      boolean before,
      int type)
      throws SQLException {
    office = H2Rows.columnIndex(connection, schemaName, tableName, "office");
    token = H2Rows.columnIndex(connection, schemaName, tableName, "token");
  }

  @Override
  public void fire(Connection connection, Object @Nullable [] oldRow, Object @Nullable [] newRow)
      throws SQLException {
    if (oldRow == null) {
      return;
    }
    Object oldOffice = oldRow[office];
    if (newRow == null) {
      if (!oldOffice.equals(H2Rows.variable(connection, "conch_retire_office"))) {
        throw refusal(
            "the conch fence row of office '"
                + oldOffice
                + "' may not be deleted (an old token would pass again): retire the office with"
                + " SET @conch_retire_office = '"
                + oldOffice
                + "' before the DELETE");
      }
      return;
    }
    if (!oldOffice.equals(newRow[office])) {
      throw refusal(
          "the conch fence row of office '"
              + oldOffice
              + "' may not change its office to '"
              + newRow[office]
              + "'");
    }
    Object newToken = newRow[token];
    long oldToken = ((Number) oldRow[token]).longValue();
    if (newToken == null || ((Number) newToken).longValue() < oldToken) {
      throw refusal(
          "the conch fence row of office '"
              + oldOffice
              + "' may not be lowered from token "
              + oldToken
              + " to "
              + newToken
              + " (an old token would pass again)");
    }
  }

  private static SQLException refusal(String message) {
    return new SQLException(message, FenceSchema.GUARD_SQLSTATE);
  }
}
