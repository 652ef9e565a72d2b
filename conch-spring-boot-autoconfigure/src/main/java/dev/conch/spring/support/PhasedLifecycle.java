package dev.conch.spring.support;

import org.springframework.context.SmartLifecycle;

/**
 * The one lifecycle of conch's beans that start and stop with the context, each at its phase: a
 * start while running and a stop while stopped do nothing; a stop may end later than it returns (it
 * calls back then, and {@code spring.lifecycle.timeout-per-shutdown-phase} bounds the wait); and a
 * start waits for a stop still under way, so that a context stopped and started again (a paused
 * test context, a CRaC checkpoint) never runs a new start beside an old stop.
 *
 * <p>The phases, earliest first: the fence's hook ({@code ConchLifecycle.PHASE - 2}), the offices'
 * {@code Lifecycle} beans ({@code - 1}), campaigning ({@link ConchLifecycle#PHASE}), the external
 * command ({@code + 256}), the health gate ({@code + 512}); they stop in the reverse order.
 *
 * <p>Infrastructure of the starter; applications do not use it.
 */
public abstract class PhasedLifecycle implements SmartLifecycle {

  private final int phase;

  private final Stops stops = new Stops();

  private volatile boolean running;

  /**
   * @param phase the phase it starts in
   */
  protected PhasedLifecycle(int phase) {
    this.phase = phase;
  }

  /** What starting does. */
  protected abstract void begin();

  /**
   * What stopping does; calls {@code callback} once stopped, at once unless overridden.
   *
   * @param callback to call when stopped, on any thread
   */
  protected void end(Runnable callback) {
    callback.run();
  }

  @Override
  public final synchronized void start() {
    if (this.running) {
      return;
    }
    // A stop that outlived the shutdown phase's timeout ends before the next start.
    this.stops.awaitAll();
    begin();
    this.running = true;
  }

  @Override
  public final void stop() {
    Stops.await(this::stop);
  }

  @Override
  public final synchronized void stop(Runnable callback) {
    if (!this.running) {
      callback.run();
      return;
    }
    this.running = false;
    end(callback);
  }

  @Override
  public final boolean isRunning() {
    return this.running;
  }

  @Override
  public final int getPhase() {
    return this.phase;
  }

  /** The stops under way, for an {@link #end} that runs later. */
  final Stops stops() {
    return this.stops;
  }
}
