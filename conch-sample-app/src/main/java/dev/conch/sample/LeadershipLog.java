package dev.conch.sample;

import dev.conch.Holder;
import dev.conch.spring.LeaderObservedEvent;
import dev.conch.spring.LeadershipAcquiredEvent;
import dev.conch.spring.LeadershipLostEvent;
import dev.conch.spring.health.CandidacyPausedEvent;
import dev.conch.spring.health.CandidacyResumedEvent;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * Listens to conch's leadership events, logs them, and keeps the latest few for the status page.
 * Events arrive on the election's event thread after the transition: they report, they do not
 * control the work (that is what {@code @OnLeadership} methods are for).
 */
@Component
public class LeadershipLog {

  private static final Logger log = LoggerFactory.getLogger(LeadershipLog.class);

  private static final int KEPT = 10;

  private final Deque<Entry> entries = new ArrayDeque<>();

  /**
   * One line of the log.
   *
   * @param at when the event arrived
   * @param text what happened
   */
  public record Entry(Instant at, String text) {}

  @EventListener
  void on(LeadershipAcquiredEvent event) {
    add("this instance leads " + event.getOffice() + " with token " + event.getToken());
  }

  @EventListener
  void on(LeadershipLostEvent event) {
    add(
        "this instance stopped leading "
            + event.getOffice()
            + " (token "
            + event.getToken()
            + ", "
            + event.getReason()
            + ")");
  }

  @EventListener
  void on(CandidacyPausedEvent event) {
    add(
        "this instance stopped campaigning for "
            + event.getOffice()
            + ": "
            + event.getReason()
            + event.getUntil().map(until -> ", quarantined until " + until).orElse(""));
  }

  @EventListener
  void on(CandidacyResumedEvent event) {
    add("this instance campaigns for " + event.getOffice() + " again");
  }

  @EventListener
  void on(LeaderObservedEvent event) {
    add(
        event
            .getLeader()
            .map(leader -> event.getOffice() + " is led by " + describe(leader))
            .orElse(event.getOffice() + " is vacant"));
  }

  /** The latest entries, newest first. */
  public synchronized List<Entry> entries() {
    return List.copyOf(this.entries);
  }

  private void add(String text) {
    log.info("Leadership event: {}", text);
    synchronized (this) {
      this.entries.addFirst(new Entry(Instant.now(), text));
      while (this.entries.size() > KEPT) {
        this.entries.removeLast();
      }
    }
  }

  /** A holder in a few words: its id, and the token it leads with. */
  static String describe(Holder holder) {
    return (holder.isConch() ? holder.id() : "a non-conch key") + " (token " + holder.rev() + ")";
  }
}
