package dev.conch.spring.boot.autoconfigure.lifecycle;

import dev.conch.Durations;
import dev.conch.Leadership;
import dev.conch.LeadershipHandler;
import dev.conch.LossReason;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.Lifecycle;
import org.springframework.context.Phased;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the {@link Lifecycle} beans of one office when this instance wins it, in the order of
 * their phases, and stops them in the reverse order when it stops leading, all within the office's
 * stop timeout. A bean still stopping when that runs out is logged at WARN: the next leader may
 * start its twin while it still runs.
 */
final class OfficeLifecycleHandler implements LeadershipHandler {

  private static final Log logger = LogFactory.getLog(OfficeLifecycleHandler.class);

  private static final Comparator<Named> BY_PHASE =
      Comparator.comparingInt(named -> phaseOf(named.bean()));

  private final String office;

  private final List<Named> beans;

  private final Duration stopTimeout;

  /**
   * @param beans the beans, by name
   * @param stopTimeout how long all of them may take to stop
   */
  OfficeLifecycleHandler(String office, List<Named> beans, Duration stopTimeout) {
    this.office = office;
    this.beans = new ArrayList<>(beans);
    this.beans.sort(BY_PHASE);
    this.stopTimeout = stopTimeout;
  }

  @Override
  public void acquired(Leadership leadership) {
    for (Named named : this.beans) {
      if (!named.bean().isRunning()) {
        named.bean().start();
        logger.info(
            "Started '"
                + named.name()
                + "': this instance leads office '"
                + this.office
                + "' (token "
                + leadership.token()
                + ")");
      }
    }
  }

  @Override
  public void lost(Leadership leadership, LossReason reason) throws InterruptedException {
    long deadline = System.nanoTime() + this.stopTimeout.toNanos();
    for (int i = this.beans.size() - 1; i >= 0; i--) {
      Named named = this.beans.get(i);
      if (named.bean().isRunning()) {
        stop(named, deadline, leadership, reason);
      }
    }
  }

  private void stop(Named named, long deadline, Leadership leadership, LossReason reason)
      throws InterruptedException {
    boolean stopped;
    if (named.bean() instanceof SmartLifecycle smart) {
      CountDownLatch done = new CountDownLatch(1);
      smart.stop(done::countDown);
      // A stop(callback) may be synchronous: it then returns late, with the callback already run.
      stopped =
          done.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)
              && System.nanoTime() - deadline <= 0;
    } else {
      named.bean().stop();
      stopped = System.nanoTime() - deadline <= 0;
    }
    if (stopped) {
      logger.info(
          "Stopped '"
              + named.name()
              + "': no longer leading office '"
              + this.office
              + "' ("
              + reason
              + ")");
    } else {
      logger.warn(
          "'"
              + named.name()
              + "' did not stop within the stop timeout of office '"
              + this.office
              + "' ("
              + Durations.format(this.stopTimeout)
              + "): possible overlap, the next leader may start while it still runs (token "
              + leadership.token()
              + ", "
              + reason
              + "). Raise conch.offices."
              + this.office
              + ".stop-timeout or make it stop faster.");
    }
  }

  private static int phaseOf(Lifecycle bean) {
    return (bean instanceof Phased phased) ? phased.getPhase() : 0;
  }

  /** A bean and its name. */
  record Named(String name, Lifecycle bean) {}
}
