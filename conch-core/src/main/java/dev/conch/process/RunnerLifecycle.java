package dev.conch.process;

import dev.conch.Durations;
import dev.conch.Election;
import dev.conch.ElectionEvent;
import dev.conch.ElectionOptions;
import dev.conch.LossReason;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The life of one runner: its thread, its stop, its result, and everything it must release. The
 * decisions are {@link RunnerLoop}'s, the work of each term {@link TermWork}'s.
 */
final class RunnerLifecycle {

  private static final Logger log = LoggerFactory.getLogger(ExternalCommandRunner.class);

  private final RunnerSettings settings;
  private final ElectionOptions electionOptions;
  private final Election election;
  private final TermWork term;
  private final BlockingQueue<Signal> signals = new LinkedBlockingQueue<>();
  private final Completion completion = new Completion();
  private final RunnerLoop loop;
  private final AutoCloseable listener;
  private final Runnable stopper = this::stop;
  private final Object lifecycle = new Object();

  // Guarded by lifecycle.
  private @Nullable Thread thread;

  RunnerLifecycle(RunnerSettings settings, ElectionOptions electionOptions, Election election) {
    this.settings = settings;
    this.electionOptions = electionOptions;
    this.election = election;
    this.term = new TermWork(settings, electionOptions.safetyMargin(), signals);
    this.loop = new RunnerLoop(settings, election, term, signals, completion);
    election.addHandler(term);
    this.listener = election.addListener(this::observe);
  }

  void start() {
    synchronized (lifecycle) {
      if (thread != null || completion.isDecided()) {
        throw new IllegalStateException(
            "runner for office '" + settings.office() + "' was already started or stopped");
      }
      thread = new Thread(this::run, "conch-runner-" + settings.office());
      thread.setDaemon(true);
      // Also the last resort of a JVM that exits without stopping the runner.
      ProcessGroups.registerStopper(stopper);
      Watchdog.retain();
      thread.start();
    }
  }

  /** The stop path: as a loss (command stopped, on-lose), then resign; bounded, idempotent. */
  void stop() {
    synchronized (lifecycle) {
      if (thread == null) {
        if (completion.decide(ExitCodes.STOPPED)) {
          release();
          completion.publish(ExitCodes.STOPPED);
        }
        return;
      }
    }
    signals.add(new Signal.Stop());
    // Whatever the loop is doing (a resign, a stop of the command) is bounded by these timeouts.
    Duration bound = electionOptions.hookTimeout().multipliedBy(3).plusSeconds(20);
    try {
      if (completion.await(bound).isEmpty()) {
        log.error(
            "office {}: runner did not stop within {}", settings.office(), Durations.format(bound));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  OptionalInt awaitExit(Duration timeout) throws InterruptedException {
    synchronized (lifecycle) {
      if (thread == null && !completion.isDecided()) {
        throw new IllegalStateException(
            "runner for office '" + settings.office() + "' not started");
      }
    }
    return completion.await(timeout);
  }

  Optional<Long> childPid() {
    return term.childPid();
  }

  private void run() {
    try {
      loop.run();
    } finally {
      term.refuse();
      release();
      // Nothing may outlive the runner, even a command whose lose hook never ran.
      term.endCurrent(LossReason.CLOSED);
      ProcessGroups.unregisterStopper(stopper);
      Watchdog.release();
      completion.publish(ExitCodes.LOST);
    }
  }

  private void observe(ElectionEvent event) {
    if (!(event instanceof ElectionEvent.LeaderObserved
        || event instanceof ElectionEvent.Leading)) {
      signals.add(new Signal.Observed(event));
    }
  }

  private void release() {
    try {
      listener.close();
    } catch (Exception e) {
      log.debug("office {}: closing the listener failed", settings.office(), e);
    }
    election.close();
  }
}
