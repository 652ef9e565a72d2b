package dev.conch.jdbc;

import java.sql.SQLException;
import java.sql.SQLTimeoutException;

/**
 * The fence waited for its lock longer than the database or the statement allowed: a transaction of
 * the office's older term held the fence (or a raise waited for one) past a lock-wait timeout
 * (PostgreSQL {@code 55P03} or a cancelled statement {@code 57014}, MySQL/MariaDB error 1205 or a
 * statement timeout, H2 {@code 50200}). The transaction did not pass the fence: roll it back; it
 * may be retried while this process leads. The database's own exception is the cause, and its
 * SQLState and vendor code are kept.
 */
public class FenceTimeoutException extends SQLTimeoutException {

  private final String office;

  /**
   * Creates the exception.
   *
   * @param office the office whose fence timed out
   * @param cause the database's exception
   */
  public FenceTimeoutException(String office, SQLException cause) {
    super(
        "the conch fence of office '"
            + office
            + "' timed out waiting for its lock (a transaction of the older term held it too long):"
            + " roll back; retry while this process leads ("
            + cause.getMessage()
            + ")",
        cause.getSQLState(),
        cause.getErrorCode(),
        cause);
    this.office = office;
  }

  /** The office whose fence timed out. */
  public String office() {
    return office;
  }

  /** Whether {@code e} is a lock-wait or statement timeout of one of the fence's databases. */
  static boolean isTimeout(SQLException e) {
    if (e instanceof SQLTimeoutException) {
      return true;
    }
    String state = e.getSQLState();
    int code = e.getErrorCode();
    return "55P03".equals(state) // PostgreSQL lock_not_available (lock_timeout)
        || "57014".equals(state) // PostgreSQL query_canceled (statement_timeout, query timeout)
        || "70100".equals(state) // MariaDB max_statement_time
        || "HYT00".equals(state) // H2 lock timeout
        || code == 1205 // MySQL/MariaDB innodb_lock_wait_timeout
        || code == 1969 // MariaDB max_statement_time
        || code == 3024 // MySQL max_execution_time
        || code == 50200; // H2 LOCK_TIMEOUT_1
  }
}
