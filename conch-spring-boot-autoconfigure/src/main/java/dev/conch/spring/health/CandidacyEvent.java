package dev.conch.spring.health;

import org.springframework.context.ApplicationEvent;

/**
 * The candidacy of this instance for one office was paused or resumed because of its required
 * health ({@code conch.offices.<name>.require-health}); listen with {@code @EventListener}.
 */
public abstract class CandidacyEvent extends ApplicationEvent {

  private final String office;

  /** An event about {@code office}, sent by {@code source}. */
  protected CandidacyEvent(Object source, String office) {
    super(source);
    this.office = office;
  }

  /** The office. */
  public String getOffice() {
    return this.office;
  }
}
