package dev.conch.spring;

import dev.conch.Election;
import dev.conch.Holder;
import dev.conch.LossReason;

/**
 * This instance no longer leads the office: its lose hooks ({@code @OnLeadership} methods) have run
 * and the office is released. Also published when an acquire hook failed ({@link
 * LossReason#ACQUIRE_FAILED}), with no {@link LeadershipAcquiredEvent} before it.
 */
public class LeadershipLostEvent extends LeadershipEvent {

  private final long token;

  private final Holder holder;

  private final LossReason reason;

  /** This instance stopped leading the office of {@code election}, which it held with token. */
  public LeadershipLostEvent(Election election, long token, Holder holder, LossReason reason) {
    super(election);
    this.token = token;
    this.holder = holder;
    this.reason = reason;
  }

  /** The fencing token of the term that ended. */
  public long getToken() {
    return this.token;
  }

  /** This instance as it was stored in the office's key. */
  public Holder getHolder() {
    return this.holder;
  }

  /** Why the term ended: resigned (shutdown included), transferred, or lost against its will. */
  public LossReason getReason() {
    return this.reason;
  }

  @Override
  public String toString() {
    return "LeadershipLostEvent[office="
        + getOffice()
        + ", token="
        + this.token
        + ", reason="
        + this.reason
        + "]";
  }
}
