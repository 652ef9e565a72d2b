package dev.conch.jdbc;

import java.sql.SQLException;

/**
 * The fence table does not exist in the caller's database: the message names the table and the
 * schema script that creates it. The transaction did not pass the fence.
 */
public final class FenceTableMissingException extends SQLException {

  private static final long serialVersionUID = 1L;

  FenceTableMissingException(String message, SQLException cause) {
    super(message, cause.getSQLState(), cause.getErrorCode(), cause);
  }
}
