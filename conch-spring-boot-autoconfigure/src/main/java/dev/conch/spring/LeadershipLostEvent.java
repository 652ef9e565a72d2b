package dev.conch.spring;

import dev.conch.Election;
import dev.conch.Holder;
import dev.conch.LossReason;
import java.util.List;

/**
 * This instance no longer leads the office: its lose hooks ({@code @OnLeadership} methods) have run
 * and the office is released. Also published when an acquire hook failed ({@link
 * LossReason#ACQUIRE_FAILED}), with no {@link LeadershipAcquiredEvent} before it.
 */
public class LeadershipLostEvent extends LeadershipEvent {

  private final long token;

  private final Holder holder;

  private final LossReason reason;

  private final List<String> interruptedWork;

  /** This instance stopped leading the office of {@code election}, which it held with token. */
  public LeadershipLostEvent(Election election, long token, Holder holder, LossReason reason) {
    this(election, token, holder, reason, List.of());
  }

  /**
   * This instance stopped leading the office of {@code election}, which it held with token, and the
   * term's stop interrupted {@code interruptedWork}.
   */
  public LeadershipLostEvent(
      Election election,
      long token,
      Holder holder,
      LossReason reason,
      List<String> interruptedWork) {
    super(election);
    this.token = token;
    this.holder = holder;
    this.reason = reason;
    this.interruptedWork = List.copyOf(interruptedWork);
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

  /**
   * The leader-only work ({@code @LeaderOnly} calls as {@code Class.method()}, {@code
   * LeaderOnlyTasks} tasks by name) still running when the term's stop reached its bound, and
   * interrupted: it may overlap the next leader's work. Empty when all of it had ended.
   */
  public List<String> getInterruptedWork() {
    return this.interruptedWork;
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
