package dev.conch.jdbc;

import org.jspecify.annotations.Nullable;

/**
 * The statements of the fence for one dialect and one table.
 *
 * <p>{@link #holds} is the steady state: one locking read that finds the office's row at exactly
 * the offered token. Where the database has a shared row lock it takes that one, so that the
 * transactions of one term do not queue behind each other, while a newer leader's raise (an
 * exclusive lock) waits for every one of them to end, and every later one sees the raised token. It
 * matches no row when the token differs, so it never holds a lock that a raise would have to
 * upgrade (on PostgreSQL; InnoDB under REPEATABLE READ locks the row it read anyway, see {@code
 * docs/fencing.md}).
 */
final class FenceStatements {

  final String holds;
  final String raise;
  final boolean raiseInserts; // the raise is an upsert: it inserts the first row too
  final @Nullable String insert; // null when the raise inserts
  final String read;

  private FenceStatements(
      String holds, String raise, boolean raiseInserts, @Nullable String insert, String read) {
    this.holds = holds;
    this.raise = raise;
    this.raiseInserts = raiseInserts;
    this.insert = insert;
    this.read = read;
  }

  static FenceStatements of(FenceDialect dialect, String table) {
    String read = "SELECT token, holder FROM " + table + " WHERE office = ? FOR UPDATE";
    String holds = "SELECT token FROM " + table + " WHERE office = ? AND token = ?";
    String update =
        "UPDATE "
            + table
            + " SET token = ?, holder = ?, updated_at = CURRENT_TIMESTAMP"
            + (dialect == FenceDialect.H2 || dialect == FenceDialect.POSTGRESQL ? "" : "(6)")
            + " WHERE office = ? AND token <= ?";
    String columns = " (office, token, holder, updated_at) VALUES (?, ?, ?, CURRENT_TIMESTAMP";
    return switch (dialect) {
      // ON CONFLICT never raises a duplicate key: a failed statement would abort the caller's
      // transaction on PostgreSQL.
      case POSTGRESQL ->
          new FenceStatements(
              holds + " FOR SHARE",
              "INSERT INTO "
                  + table
                  + " AS f"
                  + columns
                  + ") ON CONFLICT (office) DO UPDATE SET token = EXCLUDED.token,"
                  + " holder = EXCLUDED.holder, updated_at = EXCLUDED.updated_at"
                  + " WHERE f.token <= EXCLUDED.token",
              true,
              null,
              read);
      case MYSQL, MARIADB ->
          new FenceStatements(
              holds + " LOCK IN SHARE MODE",
              update,
              false,
              "INSERT IGNORE INTO " + table + columns + "(6))",
              read);
      // H2 has no shared row lock; a duplicate key fails only the statement there.
      case H2 ->
          new FenceStatements(
              holds + " FOR UPDATE", update, false, "INSERT INTO " + table + columns + ")", read);
    };
  }
}
