package dev.conch;

/**
 * A named hand-over ({@link Election#transfer(String)}) was refused before anything changed: the
 * leader still leads, and the message says why.
 */
public class TransferRefusedException extends ConchException {

  private final String office;
  private final String target;

  /** Creates the exception: {@code why} completes "office 'x': cannot hand over to 'y': ...". */
  public TransferRefusedException(String office, String target, String why) {
    super("office '" + office + "': cannot hand over to '" + target + "': " + why);
    this.office = office;
    this.target = target;
  }

  /** The office. */
  public String office() {
    return office;
  }

  /** The candidate id the hand-over was asked for. */
  public String target() {
    return target;
  }
}
