package dev.conch.spring.boot.autoconfigure;

import dev.conch.spring.LeaderObservedEvent;
import dev.conch.spring.LeadershipAcquiredEvent;
import dev.conch.spring.LeadershipLostEvent;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.context.event.EventListener;

/**
 * Records hooks and leadership events of one context in the order they happened, as lines such as
 * {@code "hook acquired a 7"} or {@code "event lost billing 7 RESIGNED"}.
 */
public final class Recorder {

  private final List<String> lines = new CopyOnWriteArrayList<>();

  private final List<LeaderObservedEvent> observed = new CopyOnWriteArrayList<>();

  public void add(String line) {
    this.lines.add(line);
  }

  public List<String> lines() {
    return List.copyOf(this.lines);
  }

  /** Leaders seen, apart from the lines: when they arrive depends on timing. */
  public List<LeaderObservedEvent> observed() {
    return List.copyOf(this.observed);
  }

  @EventListener
  public void on(LeaderObservedEvent event) {
    this.observed.add(event);
  }

  @EventListener
  public void on(LeadershipAcquiredEvent event) {
    add("event acquired " + event.getOffice() + " " + event.getToken());
  }

  @EventListener
  public void on(LeadershipLostEvent event) {
    add("event lost " + event.getOffice() + " " + event.getToken() + " " + event.getReason());
  }
}
