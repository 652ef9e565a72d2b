package dev.conch.jdbc;

import org.jspecify.annotations.Nullable;

/**
 * The statements of the fence for one dialect and one table.
 *
 * <p>{@link #hold} is the steady state, one round trip: it lets the transaction go on only while
 * the office's row is at exactly the offered token, and keeps a newer leader's raise waiting until
 * the transaction ends. {@link #raise} moves the row to a newer token; it waits for every
 * transaction that holds the fence at the older one, and every later hold sees the newer token.
 *
 * <ul>
 *   <li>PostgreSQL: a shared advisory lock of the office ({@code pg_advisory_xact_lock_shared}),
 *       taken only when the row is at the token, then the row read by a second statement of the
 *       same round trip, whose snapshot comes after the lock. The raise takes the exclusive
 *       advisory lock first. PostgreSQL's lock manager queues a shared request behind a waiting
 *       exclusive one, so a raise waits only for the transactions that held the fence when it began
 *       (a row lock {@code FOR SHARE} let new lockers in ahead of it, and made a MultiXact for
 *       every two transactions holding it at once). Under REPEATABLE READ and SERIALIZABLE the read
 *       also locks the row {@code FOR SHARE}: a row raised after the transaction's snapshot then
 *       fails it with {@code 40001} instead of letting it pass on its old view.
 *   <li>MySQL, MariaDB (InnoDB): a shared row lock ({@code LOCK IN SHARE MODE}) on a read of the
 *       row's token; InnoDB queues a shared request behind a waiting exclusive one.
 *   <li>H2 has no shared row lock: {@code FOR UPDATE}.
 * </ul>
 */
final class FenceStatements {

  /** The advisory lock space of the fence on PostgreSQL: "conc" as four bytes. */
  static final int ADVISORY_LOCK_CLASS = 0x636f6e63;

  /** The steady state: one round trip (two statements on PostgreSQL: lock, then read). */
  final String hold;

  /**
   * Whether {@link #hold} is two statements, the first of which says whether it locked; else it is
   * one that reads the row's token and holder under its lock, whatever the token (InnoDB locks the
   * row it finds either way): a newer one is refused at once, without the raise's exclusive lock
   * that concurrent refusals would deadlock on.
   */
  final boolean holdLocksFirst;

  /** A new term: raises the row to the token unless it holds a newer one. */
  final String raise;

  /** Whether the raise is an upsert that inserts the first row too (and returns the old token). */
  final boolean raiseInserts;

  /** The office's first row; null when the raise inserts. */
  final @Nullable String insert;

  /** The refusal's read of the row (its token and holder), under a lock that raises no deadlock. */
  final String read;

  /** Reads the earlier token before a raise (dialects whose raise does not return it). */
  final String previous;

  /** A query whose non-zero answer means a multi-primary cluster, where row locks are local. */
  final @Nullable String multiPrimary;

  private FenceStatements(
      String hold,
      boolean holdLocksFirst,
      String raise,
      boolean raiseInserts,
      @Nullable String insert,
      String read,
      String previous,
      @Nullable String multiPrimary) {
    this.hold = hold;
    this.holdLocksFirst = holdLocksFirst;
    this.raise = raise;
    this.raiseInserts = raiseInserts;
    this.insert = insert;
    this.read = read;
    this.previous = previous;
    this.multiPrimary = multiPrimary;
  }

  static FenceStatements of(FenceDialect dialect, String table) {
    String at = " FROM " + table + " WHERE office = ? AND token = ?";
    String read = "SELECT token, holder FROM " + table + " WHERE office = ?";
    String previous = "SELECT token FROM " + table + " WHERE office = ?";
    String update =
        "UPDATE "
            + table
            + " SET token = ?, holder = ?, updated_at = CURRENT_TIMESTAMP"
            + (dialect == FenceDialect.H2 ? "" : "(6)")
            + " WHERE office = ? AND token <= ?";
    String columns = " (office, token, holder, updated_at) VALUES (?, ?, ?, CURRENT_TIMESTAMP";
    String lock = "(" + ADVISORY_LOCK_CLASS + ", hashtext(?))";
    return switch (dialect) {
      case POSTGRESQL ->
          new FenceStatements(
              "SELECT pg_advisory_xact_lock_shared"
                  + lock
                  + at
                  + "; SELECT token, holder,"
                  + " CASE WHEN current_setting('transaction_isolation') = 'read committed'"
                  + " THEN true ELSE EXISTS (SELECT 1 FROM "
                  + table
                  + " n WHERE n.office = ? AND n.token = ? FOR SHARE) END FROM "
                  + table
                  + " WHERE office = ?",
              true,
              // ON CONFLICT never raises a duplicate key: a failed statement would abort the
              // caller's transaction. The CTE reads the row before the upsert, after the lock.
              "SELECT pg_advisory_xact_lock"
                  + lock
                  + "; WITH earlier AS (SELECT token FROM "
                  + table
                  + " WHERE office = ?) INSERT INTO "
                  + table
                  + " AS f"
                  + columns
                  + ") ON CONFLICT (office) DO UPDATE SET token = EXCLUDED.token,"
                  + " holder = EXCLUDED.holder, updated_at = EXCLUDED.updated_at"
                  + " WHERE f.token <= EXCLUDED.token RETURNING (SELECT token FROM earlier)",
              true,
              null,
              read,
              previous,
              null);
      // Group Replication in multi-primary mode (the variable exists with the plugin).
      case MYSQL ->
          innoDb(
              table,
              update,
              columns,
              "SELECT COUNT(*) FROM performance_schema.global_variables"
                  + " WHERE VARIABLE_NAME = 'group_replication_single_primary_mode'"
                  + " AND VARIABLE_VALUE = 'OFF'");
      // Galera: every node takes its own row locks, and certification decides at commit.
      case MARIADB -> innoDb(table, update, columns, "SELECT @@wsrep_on");
      // H2 has no shared row lock; a duplicate key fails only the statement there.
      case H2 ->
          new FenceStatements(
              read + " FOR UPDATE",
              false,
              update,
              false,
              "INSERT INTO " + table + columns + ")",
              read + " FOR UPDATE",
              previous + " FOR UPDATE",
              null);
    };
  }

  /** MySQL and MariaDB: the row's shared lock for the steady state and refusals. */
  private static FenceStatements innoDb(
      String table, String update, String columns, String multiPrimary) {
    String held = "SELECT token, holder FROM " + table + " WHERE office = ? LOCK IN SHARE MODE";
    return new FenceStatements(
        held,
        false,
        update,
        false,
        "INSERT IGNORE INTO " + table + columns + "(6))",
        held,
        "SELECT token FROM " + table + " WHERE office = ? FOR UPDATE",
        multiPrimary);
  }
}
