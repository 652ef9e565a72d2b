package dev.conch.spring.boot.autoconfigure;

import dev.conch.Election;
import dev.conch.ElectionEvent;
import dev.conch.ElectionListener;
import dev.conch.Holder;
import dev.conch.Leadership;
import dev.conch.LeadershipHandler;
import dev.conch.LossReason;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationEventPublisher;

/**
 * Publishes the events of one election as {@link ApplicationEvent}s: a {@link LeadershipEvent} for
 * each change of leadership, and every raw {@link ElectionEvent} as a payload event.
 *
 * <p>It is also the first handler of its election, only to remember the term that started: a {@link
 * ElectionEvent.Lost} carries the token, not the holder.
 */
final class ElectionEventPublisher implements ElectionListener, LeadershipHandler {

  private static final Log logger = LogFactory.getLog(ElectionEventPublisher.class);

  private final Election election;

  private final ApplicationEventPublisher publisher;

  private final Object monitor = new Object();

  private volatile @Nullable Leadership term;

  // Guarded by monitor.
  private long resignations;

  ElectionEventPublisher(Election election, ApplicationEventPublisher publisher) {
    this.election = election;
    this.publisher = publisher;
  }

  @Override
  public void acquired(Leadership leadership) {
    this.term = leadership;
  }

  @Override
  public void onEvent(ElectionEvent event) {
    LeadershipEvent change = toLeadershipEvent(event);
    if (change != null) {
      publish(change);
    }
    publish(event);
    if (event instanceof ElectionEvent.Resigned) {
      synchronized (this.monitor) {
        this.resignations++;
        this.monitor.notifyAll();
      }
    }
  }

  /** How many resignations were published so far. */
  long resignations() {
    synchronized (this.monitor) {
      return this.resignations;
    }
  }

  /**
   * Waits, at most {@code timeout}, until more than {@code before} resignations were published: on
   * shutdown, listeners hear of the resignation while the context can still deliver it.
   */
  boolean awaitResignation(long before, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (this.monitor) {
      while (this.resignations <= before) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(this.monitor, left);
      }
      return true;
    }
  }

  private @Nullable LeadershipEvent toLeadershipEvent(ElectionEvent event) {
    if (event instanceof ElectionEvent.Leading leading) {
      return new LeadershipAcquiredEvent(this.election, leading.token(), leading.holder());
    }
    if (event instanceof ElectionEvent.Lost lost) {
      return lostEvent(lost.token(), lost.reason());
    }
    if (event instanceof ElectionEvent.Transferred transferred) {
      return lostEvent(transferred.token(), LossReason.TRANSFERRED);
    }
    if (event instanceof ElectionEvent.Resigned resigned && resigned.token() > 0) {
      return lostEvent(resigned.token(), LossReason.RESIGNED);
    }
    if (event instanceof ElectionEvent.LeaderObserved observed) {
      return new LeaderObservedEvent(this.election, observed.leader());
    }
    return null;
  }

  private LeadershipLostEvent lostEvent(long token, LossReason reason) {
    Leadership last = this.term;
    Holder holder = (last != null && last.token() == token) ? last.holder() : null;
    return new LeadershipLostEvent(
        this.election, token, (holder != null) ? holder : this.election.candidate(), reason);
  }

  private void publish(Object event) {
    try {
      this.publisher.publishEvent(event);
    } catch (RuntimeException ex) {
      // A failing listener must not hide the events after it from the other listeners.
      logger.warn("Listener of " + event + " failed", ex);
    }
  }
}
