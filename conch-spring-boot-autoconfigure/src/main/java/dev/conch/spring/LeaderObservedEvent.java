package dev.conch.spring;

import dev.conch.Election;
import dev.conch.Holder;
import java.util.Optional;
import java.util.OptionalLong;

/** This instance saw who leads the office (itself or another instance), or that it is vacant. */
public class LeaderObservedEvent extends LeadershipEvent {

  private final Optional<Holder> leader;

  /** The office of {@code election} is led by {@code leader}, or vacant when empty. */
  public LeaderObservedEvent(Election election, Optional<Holder> leader) {
    super(election);
    this.leader = leader;
  }

  /** The leader, with its token as {@link Holder#rev()}; empty when the office is vacant. */
  public Optional<Holder> getLeader() {
    return this.leader;
  }

  /** The leader's fencing token; empty when the office is vacant. */
  public OptionalLong getToken() {
    return this.leader.map(holder -> OptionalLong.of(holder.rev())).orElse(OptionalLong.empty());
  }

  /** Whether nobody leads the office. */
  public boolean isVacant() {
    return this.leader.isEmpty();
  }

  @Override
  public String toString() {
    return "LeaderObservedEvent[office="
        + getOffice()
        + ", leader="
        + this.leader.map(Holder::toJson).orElse("none")
        + "]";
  }
}
