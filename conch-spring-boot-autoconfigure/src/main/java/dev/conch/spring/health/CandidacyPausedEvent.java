package dev.conch.spring.health;

import java.time.Instant;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * This instance stopped campaigning for an office because a required health indicator is not UP;
 * when it led the office, it resigned it and stays out until {@link #getUntil()} at least.
 */
public final class CandidacyPausedEvent extends CandidacyEvent {

  private final String indicator;

  private final String reason;

  private final boolean resigned;

  private final @Nullable Instant until;

  /**
   * @param indicator the required contributor or group that is not UP
   * @param reason what is wrong, e.g. {@code db is DOWN}
   * @param resigned whether this instance led the office and resigned it
   * @param until the end of the quarantine, when it resigned
   */
  public CandidacyPausedEvent(
      Object source,
      String office,
      String indicator,
      String reason,
      boolean resigned,
      @Nullable Instant until) {
    super(source, office);
    this.indicator = indicator;
    this.reason = reason;
    this.resigned = resigned;
    this.until = until;
  }

  /** The required health contributor or group that is not UP, as configured. */
  public String getIndicator() {
    return this.indicator;
  }

  /** What is wrong, e.g. {@code db is DOWN}. */
  public String getReason() {
    return this.reason;
  }

  /** Whether this instance led the office and resigned it. */
  public boolean isResigned() {
    return this.resigned;
  }

  /** The end of the quarantine: before it this instance does not campaign, even if UP again. */
  public Optional<Instant> getUntil() {
    return Optional.ofNullable(this.until);
  }

  @Override
  public String toString() {
    return "CandidacyPausedEvent[office="
        + getOffice()
        + ", reason="
        + this.reason
        + (this.until != null ? ", until=" + this.until : "")
        + "]";
  }
}
