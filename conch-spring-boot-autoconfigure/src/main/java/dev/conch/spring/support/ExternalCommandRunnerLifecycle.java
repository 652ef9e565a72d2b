package dev.conch.spring.support;

import dev.conch.process.ExternalCommandRunner;

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
public final class ExternalCommandRunnerLifecycle extends PhasedLifecycle {

  /** Later than {@link ConchLifecycle#PHASE}: starts after it, stops before it. */
  public static final int PHASE = ConchLifecycle.PHASE + 256;

  private final String office;

  private final Runnable startRunner;

  private final Runnable stopRunner;

  /**
   * The lifecycle of the runner of one office.
   *
   * @param office the office the runner campaigns for, to name the stop's thread
   * @param start starts a fresh runner
   * @param stop stops the current runner: its command, on-lose, then the office is left
   */
  public ExternalCommandRunnerLifecycle(String office, Runnable start, Runnable stop) {
    super(PHASE);
    this.office = office;
    this.startRunner = start;
    this.stopRunner = stop;
  }

  /** The office the runner campaigns for. */
  public String office() {
    return this.office;
  }

  @Override
  protected void begin() {
    this.startRunner.run();
  }

  @Override
  protected void end(Runnable callback) {
    stops().run("conch-runner-stop-" + this.office, this.stopRunner, callback);
  }
}
