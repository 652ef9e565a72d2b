package dev.conch;

/** The election was closed; it can no longer be started or asked to act. */
public class ElectionClosedException extends ConchException {

  /** Creates the exception for the given office. */
  public ElectionClosedException(String office) {
    super("election for office '" + office + "' is closed");
  }
}
