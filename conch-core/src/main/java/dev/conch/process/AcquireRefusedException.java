package dev.conch.process;

/**
 * Thrown from the runner's acquire hook to make the election step down: the on-acquire hook failed,
 * or the runner is not taking a term now. Its message says all; a stack trace would only repeat the
 * election's own.
 */
final class AcquireRefusedException extends Exception {

  private static final long serialVersionUID = 1L;

  AcquireRefusedException(String message) {
    super(message, null, false, false);
  }
}
