package dev.conch.spring.fence;

import dev.conch.ConchException;

/**
 * The fence could not run, so the call failed before it wrote anything: no transaction is active (a
 * fence outside the transaction protects nothing), the transaction does not write through the
 * fence's {@code DataSource}, or this instance does not lead the office (it has no token to offer).
 */
public class FenceUnavailableException extends ConchException {

  /** Creates the exception with a message that says why and what to do. */
  public FenceUnavailableException(String message) {
    super(message);
  }
}
