package dev.conch.spring.support;

import dev.conch.Durations;
import dev.conch.Leadership;
import dev.conch.LeadershipHandler;
import dev.conch.LossReason;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * start its twin while it still runs. An interrupt (the election stops waiting for this hook: a
 * successor may lead, or the hook timeout ran out) never leaves a bean running unasked: every bean
 * is told to stop, and those that did not confirm it are named at WARN.
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

  /**
   * Stops every running bean, in the reverse order of their phases. An interrupt (a successor may
   * lead, or the election gave this hook up) ends the waiting, never the stopping: each bean left
   * is still told to stop, with the flag clear so that it stops in full, and is not waited for; the
   * flag is set again at the end.
   */
  @Override
  public void lost(Leadership leadership, LossReason reason) {
    long deadline = System.nanoTime() + this.stopTimeout.toNanos();
    boolean interrupted = false;
    Map<String, CountDownLatch> pending = new LinkedHashMap<>();
    for (int i = this.beans.size() - 1; i >= 0; i--) {
      Named named = this.beans.get(i);
      interrupted |= Thread.interrupted();
      if (named.bean().isRunning()) {
        CountDownLatch done = new CountDownLatch(1);
        pending.put(named.name(), done);
        interrupted |= stop(named, done, deadline, !interrupted, leadership, reason);
      }
    }
    interrupted |= Thread.interrupted();
    List<String> unconfirmed = new ArrayList<>();
    pending.forEach(
        (name, done) -> {
          if (done.getCount() > 0) {
            unconfirmed.add("'" + name + "'");
          }
        });
    if (!unconfirmed.isEmpty()) {
      logger.warn(
          "Beans of office '"
              + this.office
              + "' that did not confirm their stop"
              + (interrupted ? " (interrupted: stop() was called on each, not waited for)" : "")
              + ": "
              + String.join(", ", unconfirmed)
              + "; their work may overlap the next leader's (token "
              + leadership.token()
              + ", "
              + reason
              + ")");
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Stops one bean and, if {@code wait}, waits for its callback until {@code deadline}; {@code
   * done} counts down once it confirmed. Returns whether the wait was interrupted.
   */
  private boolean stop(
      Named named,
      CountDownLatch done,
      long deadline,
      boolean wait,
      Leadership leadership,
      LossReason reason) {
    boolean interrupted = false;
    try {
      if (named.bean() instanceof SmartLifecycle smart) {
        smart.stop(done::countDown);
      } else {
        named.bean().stop();
        done.countDown();
      }
      if (wait) {
        // A stop(callback) may be synchronous: it then returns late, with the callback already run.
        done.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      }
    } catch (InterruptedException ex) {
      interrupted = true;
    } catch (RuntimeException ex) {
      logger.warn("Stopping '" + named.name() + "' of office '" + this.office + "' failed", ex);
      return false;
    }
    boolean confirmed = done.getCount() == 0;
    if (confirmed && System.nanoTime() - deadline <= 0) {
      logger.info(
          "Stopped '"
              + named.name()
              + "': no longer leading office '"
              + this.office
              + "' ("
              + reason
              + ")");
    } else if (confirmed || (wait && !interrupted)) {
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
    return interrupted;
  }

  /** How the election's logs name it among the office's handlers. */
  @Override
  public String toString() {
    return "the lifecycle beans "
        + this.beans.stream().map(named -> "'" + named.name() + "'").toList()
        + " of office '"
        + this.office
        + "'";
  }

  private static int phaseOf(Lifecycle bean) {
    return (bean instanceof Phased phased) ? phased.getPhase() : 0;
  }

  /** A bean and its name. */
  record Named(String name, Lifecycle bean) {}
}
