package dev.conch.spring.support;

import dev.conch.Election;
import dev.conch.ElectionEvent;
import dev.conch.ElectionListener;
import dev.conch.Holder;
import dev.conch.Leadership;
import dev.conch.LeadershipHandler;
import dev.conch.LossReason;
import dev.conch.spring.CampaigningEvent;
import dev.conch.spring.LeaderObservedEvent;
import dev.conch.spring.LeadershipAcquiredEvent;
import dev.conch.spring.LeadershipEvent;
import dev.conch.spring.LeadershipLostEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationEventPublisher;

/**
 * Publishes the events of one election as {@link ApplicationEvent}s: a {@link LeadershipEvent} for
 * each campaign and change of leadership (the one family: the raw {@link ElectionEvent}s are not
 * published). A {@link LeadershipLostEvent} carries the work its term's stop interrupted ({@link
 * ElectionEvent.WorkInterrupted} comes before the end of its term), so that conch's own listeners
 * (the meters) read the leadership events only.
 *
 * <p>It is also the first handler of its election, only to remember the term that started: a {@link
 * ElectionEvent.Lost} carries the token, not the holder.
 *
 * <p>The listeners run on the core's event threads, which conch owns: the events of one election
 * reach them one after another, in order, and a slow listener holds up only its own election's
 * events (the core lends the others a thread of their own).
 */
final class ElectionEventPublisher implements ElectionListener, LeadershipHandler {

  private static final Log logger = LogFactory.getLog(ElectionEventPublisher.class);

  private final Election election;

  private final ApplicationEventPublisher publisher;

  private final Object monitor = new Object();

  private volatile @Nullable Leadership term;

  // Written on the election's event thread only: whether the next campaign is the first since
  // joining, and the work the stop of the term with interruptedToken interrupted.
  private boolean joined;

  private long interruptedToken;

  private List<String> interrupted = List.of();

  // Guarded by monitor.
  private long resignations;

  // Guarded by monitor: shutdowns waiting for a resignation to be published.
  private final List<Waiter> waiting = new ArrayList<>();

  ElectionEventPublisher(Election election, ApplicationEventPublisher publisher) {
    this.election = election;
    this.publisher = publisher;
  }

  @Override
  public void acquired(Leadership leadership) {
    this.term = leadership;
  }

  /** How the election's logs name it among the office's handlers. */
  @Override
  public String toString() {
    return "the leadership events of office '" + this.election.office() + "'";
  }

  @Override
  public void onEvent(ElectionEvent event) {
    try {
      deliver(event);
    } catch (Exception ex) {
      logger.warn("Publishing " + event + " failed", ex);
    }
  }

  private void deliver(ElectionEvent event) {
    // One family: the leadership events, not the core's raw ones beside them.
    LeadershipEvent change = toLeadershipEvent(event);
    if (change != null) {
      publish(change);
    }
    if (event instanceof ElectionEvent.Resigned) {
      List<CompletableFuture<Void>> heard = new ArrayList<>();
      synchronized (this.monitor) {
        this.resignations++;
        this.waiting.removeIf(
            (waiter) -> {
              if (waiter.before() < this.resignations) {
                heard.add(waiter.published());
                return true;
              }
              return false;
            });
      }
      heard.forEach((published) -> published.complete(null));
    }
  }

  /** How many resignations were published so far. */
  long resignations() {
    synchronized (this.monitor) {
      return this.resignations;
    }
  }

  /**
   * Completes once more than {@code before} resignations were published: on shutdown, listeners
   * hear of the resignation while the context can still deliver it.
   */
  CompletableFuture<Void> resignationAfter(long before) {
    synchronized (this.monitor) {
      if (this.resignations > before) {
        return CompletableFuture.completedFuture(null);
      }
      Waiter waiter = new Waiter(before, new CompletableFuture<>());
      this.waiting.add(waiter);
      // Completed otherwise (a caller's timeout): no longer waiting.
      waiter.published().whenComplete((ok, error) -> forget(waiter));
      return waiter.published();
    }
  }

  private void forget(Waiter waiter) {
    synchronized (this.monitor) {
      this.waiting.remove(waiter);
    }
  }

  private record Waiter(long before, CompletableFuture<Void> published) {}

  private @Nullable LeadershipEvent toLeadershipEvent(ElectionEvent event) {
    if (event instanceof ElectionEvent.Joined) {
      this.joined = true;
      return null;
    }
    if (event instanceof ElectionEvent.Campaigning) {
      boolean first = this.joined;
      this.joined = false;
      return new CampaigningEvent(this.election, first);
    }
    if (event instanceof ElectionEvent.WorkInterrupted interrupted) {
      this.interruptedToken = interrupted.token();
      this.interrupted = interrupted.work();
      return null;
    }
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
    List<String> interrupted = (this.interruptedToken == token) ? this.interrupted : List.of();
    this.interrupted = List.of();
    return new LeadershipLostEvent(
        this.election,
        token,
        (holder != null) ? holder : this.election.candidate(),
        reason,
        interrupted);
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
