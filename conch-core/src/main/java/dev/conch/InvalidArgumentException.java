package dev.conch;

/**
 * A bad setting or argument: the message names the setting, the bad value and what would be
 * accepted. Nothing was started when it is thrown.
 */
public class InvalidArgumentException extends IllegalArgumentException {

  private final String name;
  private final Object value;
  private final String accepted;

  /** Creates the exception for setting {@code name} with the bad {@code value}. */
  public InvalidArgumentException(String name, Object value, String accepted) {
    super("invalid " + name + " '" + value + "': " + accepted);
    this.name = name;
    this.value = value;
    this.accepted = accepted;
  }

  /** The name of the setting or argument. */
  public String name() {
    return name;
  }

  /** The value that was refused. */
  public Object value() {
    return value;
  }

  /** What would be accepted. */
  public String accepted() {
    return accepted;
  }
}
