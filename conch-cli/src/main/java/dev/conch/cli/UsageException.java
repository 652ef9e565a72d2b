package dev.conch.cli;

/** A bad flag, value or combination found after parsing: exit 64 with this message. */
final class UsageException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  UsageException(String message) {
    super(message);
  }
}
