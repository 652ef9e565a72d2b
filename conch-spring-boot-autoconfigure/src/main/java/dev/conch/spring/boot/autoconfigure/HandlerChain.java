package dev.conch.spring.boot.autoconfigure;

import dev.conch.Leadership;
import dev.conch.LeadershipHandler;
import dev.conch.LossReason;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The application's handlers of the runner's office, as one handler that the runner's election got
 * before the runner's own: so they run before the command starts, and after it stopped (the core
 * runs lose hooks in the reverse order of registration). Within the chain the core's rules hold:
 * acquire in order, lose in reverse, and a failed acquire undoes the ones before it.
 */
final class HandlerChain implements LeadershipHandler {

  private static final Log logger = LogFactory.getLog(HandlerChain.class);

  private final List<LeadershipHandler> handlers = new CopyOnWriteArrayList<>();

  void add(LeadershipHandler handler) {
    this.handlers.add(handler);
  }

  @Override
  public void acquired(Leadership leadership) throws Exception {
    List<LeadershipHandler> started = new ArrayList<>();
    for (LeadershipHandler handler : this.handlers) {
      try {
        handler.acquired(leadership);
      } catch (Exception | Error ex) {
        // The core will not call lost() on the chain: what started here is stopped here.
        undo(started, leadership, LossReason.ACQUIRE_FAILED);
        throw ex;
      }
      started.add(handler);
    }
  }

  @Override
  public void lost(Leadership leadership, LossReason reason) {
    undo(this.handlers, leadership, reason);
  }

  private static void undo(List<LeadershipHandler> started, Leadership term, LossReason reason) {
    for (int i = started.size() - 1; i >= 0; i--) {
      LeadershipHandler handler = started.get(i);
      try {
        handler.lost(term, reason);
      } catch (Exception ex) {
        logger.warn("Lose hook " + handler + " of office " + term.office() + " failed", ex);
      }
    }
  }
}
