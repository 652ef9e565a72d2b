package dev.conch.spring;

import dev.conch.Election;

/**
 * This instance campaigns for the office: it queues for the lead, having just joined the election
 * ({@link #isJoined()}), or again after a term ended, a campaign failed or its gate denied one.
 * Comes before the {@link LeadershipAcquiredEvent} of the campaign it wins.
 */
public class CampaigningEvent extends LeadershipEvent {

  private final boolean joined;

  /**
   * This instance campaigns for the office of {@code election}.
   *
   * @param joined whether it is the first campaign since this instance joined the election
   */
  public CampaigningEvent(Election election, boolean joined) {
    super(election);
    this.joined = joined;
  }

  /**
   * Whether it is the first campaign since this instance joined the election (the context started,
   * or started again), rather than a campaign again.
   */
  public boolean isJoined() {
    return this.joined;
  }

  @Override
  public String toString() {
    return "CampaigningEvent[office=" + getOffice() + ", joined=" + this.joined + "]";
  }
}
