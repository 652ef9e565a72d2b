package dev.conch;

import org.jspecify.annotations.Nullable;

/** The base of conch's own errors. */
public class ConchException extends RuntimeException {

  /** Creates the exception with a message that says what happened and what to do. */
  public ConchException(String message) {
    super(message);
  }

  /** Creates the exception with a message and its cause. */
  public ConchException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }
}
