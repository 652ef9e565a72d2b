package dev.conch;

/**
 * The states of one candidate in one office: {@code JOINED}, then {@code CAMPAIGNING}, then {@code
 * LEADING} or {@code FOLLOWING}; leading ends in {@code RESIGNED}, {@code TRANSFERRED} or {@code
 * LOST}, after which (but for resigned) it campaigns again; {@code DENIED} while its gate refuses
 * to let it campaign, {@code CLOSED} once it left for good.
 */
public enum State {
  /** Created, or joined and not yet campaigning. */
  JOINED,
  /** Campaigning: its key is written, or about to be, and it waits for those ahead of it. */
  CAMPAIGNING,
  /**
   * Leading: it holds the office and its token is valid. From the moment the term is over (its
   * {@link Leadership#isValid()} false), the state is the end it comes to, also while its lose
   * hooks still run and before the election has seen the deadline pass.
   */
  LEADING,
  /** Following: another candidate leads and this one waits behind it. */
  FOLLOWING,
  /**
   * Resigned: it left the election on request (or is leaving it: lose hooks and the key's deletion
   * may still be under way); it does not campaign until started again.
   */
  RESIGNED,
  /** Transferred: it gave leadership up and queues again at the back. */
  TRANSFERRED,
  /** Lost: leadership ended against its will (lease, key, connection); it campaigns again. */
  LOST,
  /** Denied: its gate refused to let it campaign. */
  DENIED,
  /** Closed: it left the election for good. */
  CLOSED
}
