package dev.conch.spring.health;

/**
 * This instance campaigns for an office again: its required health indicators are UP and its
 * quarantine, if it had one, is over.
 */
public final class CandidacyResumedEvent extends CandidacyEvent {

  /** The candidacy for {@code office} resumed. */
  public CandidacyResumedEvent(Object source, String office) {
    super(source, office);
  }

  @Override
  public String toString() {
    return "CandidacyResumedEvent[office=" + getOffice() + "]";
  }
}
