package dev.conch.spring;

import dev.conch.Election;
import dev.conch.Holder;

/** This instance leads the office: its acquire hooks ({@code @OnLeadership} methods) have run. */
public class LeadershipAcquiredEvent extends LeadershipEvent {

  private final long token;

  private final Holder holder;

  /** This instance leads the office of {@code election} with {@code token}. */
  public LeadershipAcquiredEvent(Election election, long token, Holder holder) {
    super(election);
    this.token = token;
    this.holder = holder;
  }

  /** The fencing token of this term; it grows strictly with each new leader of the office. */
  public long getToken() {
    return this.token;
  }

  /** This instance as stored in the office's key. */
  public Holder getHolder() {
    return this.holder;
  }

  @Override
  public String toString() {
    return "LeadershipAcquiredEvent[office=" + getOffice() + ", token=" + this.token + "]";
  }
}
