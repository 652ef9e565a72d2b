package dev.conch.spring.boot.autoconfigure;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.context.event.EventListener;

/**
 * Records hooks and leadership events of one context in the order they happened, as lines such as
 * {@code "hook acquired a 7"} or {@code "event lost billing 7 RESIGNED"}.
 */
class Recorder {

  private final List<String> lines = new CopyOnWriteArrayList<>();

  private final List<LeaderObservedEvent> observed = new CopyOnWriteArrayList<>();

  void add(String line) {
    this.lines.add(line);
  }

  List<String> lines() {
    return List.copyOf(this.lines);
  }

  /** Leaders seen, apart from the lines: when they arrive depends on timing. */
  List<LeaderObservedEvent> observed() {
    return List.copyOf(this.observed);
  }

  @EventListener
  void on(LeaderObservedEvent event) {
    this.observed.add(event);
  }

  @EventListener
  void on(LeadershipAcquiredEvent event) {
    add("event acquired " + event.getOffice() + " " + event.getToken());
  }

  @EventListener
  void on(LeadershipLostEvent event) {
    add("event lost " + event.getOffice() + " " + event.getToken() + " " + event.getReason());
  }
}
