package dev.conch.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.h2.api.Trigger;
import org.jspecify.annotations.Nullable;

/**
 * The fence column's trigger on H2 ({@link FenceSchema#columnTrigger}): checks each inserted or
 * updated row's token against the fence table, raising it for a newer token and refusing an older
 * or missing one, under the fence's H2 lock ({@code SELECT ... FOR UPDATE}). Its office, token
 * column and fence table are in the trigger's remark, which {@link FenceSchema} writes; a trigger
 * without one refuses every write. Needs H2 on the class path; conch-jdbc does not bring it.
 */
public final class H2FenceColumn implements Trigger {

  /** How the trigger's remark starts. */
  static final String REMARK_PREFIX = "conch fence column:";

  private static final String UNIQUE_VIOLATION = "23505";
  private static final String SERIALIZATION_FAILURE = "40001";

  private volatile String schema = "";
  private volatile String trigger = "";
  private volatile String table = "";
  private volatile @Nullable Config config;

  /** Created by H2 for the trigger. */
  public H2FenceColumn() {}

  private record Config(
      String fenceTable,
      String column,
      int tokenIndex,
      @Nullable String office,
      int officeIndex,
      String read,
      String update,
      String insert) {}

  @Override
  public void init(
      Connection connection,
      String schemaName,
      String triggerName,
      String tableName,
      boolean before,
      int type) {
    this.schema = schemaName;
    this.trigger = triggerName;
    this.table = tableName;
  }

  @Override
  public void fire(Connection connection, Object @Nullable [] oldRow, Object @Nullable [] newRow)
      throws SQLException {
    if (newRow == null) {
      return;
    }
    Config c = config(connection);
    Object token = newRow[c.tokenIndex];
    Object officeValue = c.office != null ? c.office : newRow[c.officeIndex];
    if (token == null || officeValue == null) {
      throw new SQLException(
          "the write to "
              + table
              + " carries no fencing token for office '"
              + officeValue
              + "' ("
              + (token == null ? c.column : "its office column")
              + " is NULL): a write that does not say its term may not pass",
          FenceSchema.MISSING_TOKEN_SQLSTATE);
    }
    String office = officeValue.toString();
    long offered = ((Number) token).longValue();
    for (int attempt = 0; ; attempt++) {
      try (PreparedStatement read = connection.prepareStatement(c.read)) {
        read.setString(1, office);
        try (ResultSet row = read.executeQuery()) {
          if (row.next()) {
            long current = row.getLong(1);
            if (current == offered) {
              return;
            }
            if (current > offered) {
              throw new SQLException(
                  "stale fencing token "
                      + offered
                      + " for office '"
                      + office
                      + "': the fence holds token "
                      + current
                      + " of holder '"
                      + row.getString(2)
                      + "'; a newer leader took over, roll this transaction back",
                  FenceSchema.STALE_TOKEN_SQLSTATE);
            }
            try (PreparedStatement update = connection.prepareStatement(c.update)) {
              update.setLong(1, offered);
              update.setString(2, holder(connection, table));
              update.setString(3, office);
              update.setLong(4, offered);
              update.executeUpdate();
            }
            // The row is locked (FOR UPDATE): the UPDATE matched it.
            return;
          }
        }
      }
      try (PreparedStatement insert = connection.prepareStatement(c.insert)) {
        insert.setString(1, office);
        insert.setLong(2, offered);
        insert.setString(3, holder(connection, table));
        insert.executeUpdate();
        return;
      } catch (SQLException e) {
        // Another transaction inserted the office's first row: read it again (once).
        if (!UNIQUE_VIOLATION.equals(e.getSQLState())) {
          throw e;
        }
        if (attempt > 0) {
          throw new SQLException(
              "the fence row of office '"
                  + office
                  + "' exists but this transaction cannot see it (its snapshot is older than"
                  + " the row): roll back and retry",
              SERIALIZATION_FAILURE,
              e);
        }
      }
    }
  }

  /** The session's {@code @conch_holder}, else its user, else the table written. */
  private static String holder(Connection connection, String table) throws SQLException {
    String holder = H2Rows.variable(connection, "conch_holder");
    if (holder == null || holder.isEmpty()) {
      holder = connection.getMetaData().getUserName();
    }
    if (holder == null || holder.isEmpty()) {
      holder = "a write to " + table;
    }
    return holder.substring(0, Math.min(holder.length(), JdbcFence.MAX_HOLDER_LENGTH));
  }

  private Config config(Connection connection) throws SQLException {
    Config loaded = config;
    if (loaded != null) {
      return loaded;
    }
    String remark = H2Rows.triggerRemark(connection, schema, trigger);
    if (remark == null || !remark.startsWith(REMARK_PREFIX)) {
      throw new SQLException(
          "the conch fence trigger "
              + trigger
              + " on "
              + table
              + " has no office in its remark: install it with FenceSchema.columnTrigger",
          FenceSchema.MISSING_TOKEN_SQLSTATE);
    }
    String fenceTable = null;
    String column = null;
    String office = null;
    String officeColumn = null;
    for (String part : remark.substring(REMARK_PREFIX.length()).strip().split(" ")) {
      int equals = part.indexOf('=');
      String key = part.substring(0, equals);
      String value = part.substring(equals + 1);
      switch (key) {
        case "fence" -> fenceTable = value;
        case "column" -> column = value;
        case "office" -> office = value;
        case "officeColumn" -> officeColumn = value;
        default -> {}
      }
    }
    if (fenceTable == null || column == null || (office == null) == (officeColumn == null)) {
      throw new SQLException(
          "the remark of the conch fence trigger " + trigger + " is damaged: " + remark,
          FenceSchema.MISSING_TOKEN_SQLSTATE);
    }
    String checkedFence = FenceTable.require(fenceTable);
    loaded =
        new Config(
            checkedFence,
            column,
            H2Rows.columnIndex(connection, schema, table, column),
            office,
            officeColumn == null ? -1 : H2Rows.columnIndex(connection, schema, table, officeColumn),
            "SELECT token, holder FROM " + checkedFence + " WHERE office = ? FOR UPDATE",
            "UPDATE "
                + checkedFence
                + " SET token = ?, holder = ?, updated_at = CURRENT_TIMESTAMP"
                + " WHERE office = ? AND token <= ?",
            "INSERT INTO "
                + checkedFence
                + " (office, token, holder, updated_at) VALUES (?, ?, ?, CURRENT_TIMESTAMP)");
    config = loaded;
    return loaded;
  }
}
