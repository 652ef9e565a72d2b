package dev.conch.spring.boot.autoconfigure.health;

import dev.conch.spring.LeadershipLostEvent;
import dev.conch.spring.health.CandidacyEvent;
import dev.conch.spring.health.CandidacyPausedEvent;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.context.event.EventListener;

/** Records the candidacy events and the losses of one context. */
public final class CandidacyRecorder {

  final List<CandidacyEvent> candidacy = new CopyOnWriteArrayList<>();

  final List<LeadershipLostEvent> losses = new CopyOnWriteArrayList<>();

  @EventListener
  public void on(CandidacyEvent event) {
    this.candidacy.add(event);
  }

  @EventListener
  public void on(LeadershipLostEvent event) {
    this.losses.add(event);
  }

  CandidacyPausedEvent lastPause() {
    return this.candidacy.stream()
        .filter(CandidacyPausedEvent.class::isInstance)
        .map(CandidacyPausedEvent.class::cast)
        .reduce((first, second) -> second)
        .orElseThrow();
  }
}
