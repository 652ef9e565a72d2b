package dev.conch.spring;

import dev.conch.Election;
import org.springframework.context.ApplicationEvent;

/**
 * A change of leadership of one office, published as an {@link ApplicationEvent} on the election's
 * event thread; listen with {@code @EventListener}. The one family of leadership events: the core's
 * raw {@link dev.conch.ElectionEvent}s are not published beside them (an {@link
 * dev.conch.ElectionListener} added to the {@link Election} hears every state).
 */
public abstract class LeadershipEvent extends ApplicationEvent {

  private final String office;

  /** An event about the office of {@code election}. */
  protected LeadershipEvent(Election election) {
    super(election);
    this.office = election.office();
  }

  /** The candidate of this instance that saw the change. */
  public Election getElection() {
    return (Election) getSource();
  }

  /** The office. */
  public String getOffice() {
    return this.office;
  }
}
