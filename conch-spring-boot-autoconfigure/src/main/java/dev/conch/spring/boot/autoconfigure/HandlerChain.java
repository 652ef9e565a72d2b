package dev.conch.spring.boot.autoconfigure;

import dev.conch.Leadership;
import dev.conch.LeadershipHandler;
import dev.conch.LossReason;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The application's handlers of the runner's office, as one handler that the runner's election got
 * before the runner's own: so they run before the command starts, and after it stopped (the core
 * runs lose hooks in the reverse order of registration).
 *
 * <p>Within the chain the core's contract of {@link LeadershipHandler} holds for each handler: it
 * is called {@code lost} exactly once for each {@code acquired} call it got, also one that failed,
 * and never otherwise; lose hooks run in the reverse order. The core calls the chain's own {@link
 * #lost} once for each of its {@link #acquired} calls, including one that failed, so the chain
 * undoes what it started there and only there.
 */
final class HandlerChain implements LeadershipHandler {

  private static final Log logger = LogFactory.getLog(HandlerChain.class);

  private final List<LeadershipHandler> handlers = new CopyOnWriteArrayList<>();

  private final Object monitor = new Object();

  // Guarded by monitor: the handlers called in the current term, null between terms.
  private @Nullable Term term;

  void add(LeadershipHandler handler) {
    this.handlers.add(handler);
  }

  @Override
  public void acquired(Leadership leadership) throws Exception {
    Term current = new Term();
    synchronized (this.monitor) {
      this.term = current;
    }
    for (LeadershipHandler handler : this.handlers) {
      // Listed before it is called, as the core does: what it began must be stopped, whatever
      // became of the call. A term that ended meanwhile (the core gave up on this call) starts
      // nothing more.
      if (!current.start(handler)) {
        return;
      }
      handler.acquired(leadership);
    }
  }

  @Override
  public void lost(Leadership leadership, LossReason reason) {
    Term ended;
    synchronized (this.monitor) {
      ended = this.term;
      this.term = null;
    }
    if (ended == null) {
      return;
    }
    List<LeadershipHandler> started = ended.end();
    for (int i = started.size() - 1; i >= 0; i--) {
      LeadershipHandler handler = started.get(i);
      try {
        handler.lost(leadership, reason);
      } catch (Exception ex) {
        logger.warn("Lose hook " + handler + " of office " + leadership.office() + " failed", ex);
      }
    }
  }

  /** How the election's logs name it: the handlers it chains. */
  @Override
  public String toString() {
    return "the handlers " + this.handlers + " of the runner's office";
  }

  /** The handlers one term started; once ended, it starts no more. */
  private static final class Term {

    private final List<LeadershipHandler> started = new ArrayList<>();

    private boolean ended;

    synchronized boolean start(LeadershipHandler handler) {
      if (this.ended) {
        return false;
      }
      this.started.add(handler);
      return true;
    }

    synchronized List<LeadershipHandler> end() {
      this.ended = true;
      return List.copyOf(this.started);
    }
  }
}
