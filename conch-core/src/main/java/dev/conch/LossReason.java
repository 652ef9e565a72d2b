package dev.conch;

/** Why a leadership ended. */
public enum LossReason {
  /** The candidate resigned on request. */
  RESIGNED,
  /** The candidate handed the office over and queued again. */
  TRANSFERRED,
  /** The election was closed (shutdown). */
  CLOSED,
  /** An acquire hook failed or timed out, so the candidate stepped down at once. */
  ACQUIRE_FAILED,
  /**
   * Renewal did not succeed in time: leadership was dropped before the lease could expire (etcd
   * unreachable, quorum lost, partition).
   */
  RENEWAL_FAILED,
  /**
   * The lease is gone (the store says so), or its deadline passed before the candidate could act (a
   * frozen process): a successor may already lead, so work must stop at once.
   */
  LEASE_EXPIRED,
  /** The candidate's key was deleted by someone else: a successor may already lead. */
  KEY_DELETED;

  /** Whether another candidate may already lead, so that work must stop at once, without grace. */
  public boolean successorMayLead() {
    return this == LEASE_EXPIRED || this == KEY_DELETED;
  }

  /** Whether the candidate chose to end its leadership (resign, transfer, close). */
  public boolean isVoluntary() {
    return this == RESIGNED || this == TRANSFERRED || this == CLOSED;
  }
}
