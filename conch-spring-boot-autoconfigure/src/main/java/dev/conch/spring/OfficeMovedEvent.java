package dev.conch.spring;

import dev.conch.OfficeGroup;
import org.springframework.context.ApplicationEvent;

/**
 * This instance handed an office to another member of its group, to even out the shares ({@link
 * OfficeGroup.Reason#SHARE}) or because a member of higher priority is live ({@link
 * OfficeGroup.Reason#PRIORITY}). Published once per move, on a thread of its own, after the term
 * ended (the office's lose hooks ran, and its {@link LeadershipLostEvent} says {@code
 * TRANSFERRED}); listen with {@code @EventListener}.
 */
public class OfficeMovedEvent extends ApplicationEvent {

  private final String group;

  private final OfficeGroup.Move move;

  /**
   * A move made by {@code source}'s group.
   *
   * @param source the balancer whose group made the move
   * @param group the group's name
   * @param move the move
   */
  public OfficeMovedEvent(Object source, String group, OfficeGroup.Move move) {
    super(source);
    this.group = group;
    this.move = move;
  }

  /** The name of the group the office is shared in. */
  public String getGroup() {
    return this.group;
  }

  /** The office that moved. */
  public String getOffice() {
    return this.move.office();
  }

  /** The candidate id of the member that leads it next. */
  public String getTo() {
    return this.move.to();
  }

  /** The fencing token of this instance's term that ended. */
  public long getToken() {
    return this.move.token();
  }

  /** Why it moved. */
  public OfficeGroup.Reason getReason() {
    return this.move.reason();
  }

  /** The move as the group reported it. */
  public OfficeGroup.Move getMove() {
    return this.move;
  }

  @Override
  public String toString() {
    return "OfficeMovedEvent[group="
        + this.group
        + ", office="
        + getOffice()
        + ", to="
        + getTo()
        + ", token="
        + getToken()
        + ", reason="
        + getReason()
        + "]";
  }
}
