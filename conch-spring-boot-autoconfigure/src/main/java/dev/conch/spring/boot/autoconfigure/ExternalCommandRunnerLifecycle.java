package dev.conch.spring.boot.autoconfigure;

import dev.conch.process.ExternalCommandRunner;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the {@link ExternalCommandRunner} bean once the elections have started, and stops it on
 * shutdown before they resign: the command's whole process group is stopped and on-lose has run
 * while every other office is still held and every bean is alive.
 */
final class ExternalCommandRunnerLifecycle implements SmartLifecycle {

  /** Later than {@link ConchLifecycle#PHASE}: starts after it, stops before it. */
  static final int PHASE = ConchLifecycle.PHASE + 256;

  private final ExternalCommandRunner runner;

  private volatile boolean running;

  // Guarded by this; a runner starts once, so a restarted context does not start it again.
  private boolean started;

  ExternalCommandRunnerLifecycle(ExternalCommandRunner runner) {
    this.runner = runner;
  }

  @Override
  public synchronized void start() {
    if (!this.started) {
      this.started = true;
      this.runner.start();
    }
    this.running = true;
  }

  @Override
  public synchronized void stop() {
    if (this.running) {
      this.running = false;
      this.runner.stop();
    }
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
