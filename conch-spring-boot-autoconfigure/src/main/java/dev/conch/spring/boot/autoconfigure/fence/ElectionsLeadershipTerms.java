package dev.conch.spring.boot.autoconfigure.fence;

import dev.conch.Election;
import dev.conch.Leadership;
import dev.conch.spring.Elections;
import dev.conch.spring.fence.LeadershipTerms;
import dev.conch.spring.leaderonly.CurrentLeadership;
import java.util.Optional;
import org.springframework.beans.factory.ObjectProvider;

/**
 * The terms of conch's elections: the running {@code @LeaderOnly} term first (the work began in it,
 * even if the office was won again since), else the election's current term. Without conch's
 * elections (conch disabled) there is no term, and every fence fails: closed, not open.
 */
final class ElectionsLeadershipTerms implements LeadershipTerms {

  private final ObjectProvider<Elections> elections;

  ElectionsLeadershipTerms(ObjectProvider<Elections> elections) {
    this.elections = elections;
  }

  @Override
  public Optional<String> defaultOffice() {
    Optional<Leadership> running = CurrentLeadership.find();
    if (running.isPresent()) {
      return Optional.of(running.get().office());
    }
    Elections all = this.elections.getIfAvailable();
    return (all != null) ? all.defaultOffice() : Optional.empty();
  }

  @Override
  public Optional<Leadership> current(String office) {
    Optional<Leadership> running = CurrentLeadership.find();
    if (running.isPresent() && running.get().office().equals(office)) {
      return running;
    }
    Elections all = this.elections.getIfAvailable();
    return (all != null) ? all.find(office).flatMap(Election::leadership) : Optional.empty();
  }
}
