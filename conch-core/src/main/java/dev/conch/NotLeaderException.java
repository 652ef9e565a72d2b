package dev.conch;

/** An operation that needs leadership was asked of a candidate that does not lead. */
public class NotLeaderException extends ConchException {

  /** Creates the exception for the given office. */
  public NotLeaderException(String office) {
    super("this candidate does not lead office '" + office + "'");
  }
}
