package dev.conch.spring.support;

import dev.conch.process.ExternalCommandRunner;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the {@link ExternalCommandRunner} once the elections have started, and stops it on
 * shutdown before they resign: the command's whole process group is stopped and on-lose has run
 * while every other office is still held and every bean is alive.
 *
 * <p>A context stopped and started again (a paused test context, a CRaC checkpoint) runs the
 * command again: each start after a stop runs a fresh runner. The stop runs on a thread of its own,
 * so that {@code spring.lifecycle.timeout-per-shutdown-phase} bounds how long shutdown waits for
 * it.
 *
 * <p>Infrastructure of the starter, created by its auto-configuration; applications do not use it.
 */
public final class ExternalCommandRunnerLifecycle implements SmartLifecycle {

  /** Later than {@link ConchLifecycle#PHASE}: starts after it, stops before it. */
  public static final int PHASE = ConchLifecycle.PHASE + 256;

  private final String office;

  private final Runnable startRunner;

  private final Runnable stopRunner;

  private final Stops stops = new Stops();

  private volatile boolean running;

  /**
   * The lifecycle of the runner of one office.
   *
   * @param office the office the runner campaigns for, to name the stop's thread
   * @param start starts a fresh runner
   * @param stop stops the current runner: its command, on-lose, then the office is left
   */
  public ExternalCommandRunnerLifecycle(String office, Runnable start, Runnable stop) {
    this.office = office;
    this.startRunner = start;
    this.stopRunner = stop;
  }

  /** The office the runner campaigns for. */
  public String office() {
    return this.office;
  }

  @Override
  public synchronized void start() {
    if (this.running) {
      return;
    }
    // A stop that outlived the shutdown phase's timeout ends before the next runner starts.
    this.stops.awaitAll();
    this.startRunner.run();
    this.running = true;
  }

  @Override
  public void stop() {
    Stops.await(this::stop);
  }

  @Override
  public synchronized void stop(Runnable callback) {
    if (!this.running) {
      callback.run();
      return;
    }
    this.running = false;
    this.stops.run("conch-runner-stop-" + this.office, this.stopRunner, callback);
  }

  @Override
  public boolean isRunning() {
    return this.running;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }
}
