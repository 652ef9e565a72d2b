package dev.conch.spring.boot.autoconfigure.lifecycle;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.context.SmartLifecycle;

/**
 * A stand-in for a message listener container: a {@link SmartLifecycle} that starts with the
 * context unless told not to, records its starts and stops, and may take a while to stop.
 */
class Container implements SmartLifecycle {

  final List<String> history = new CopyOnWriteArrayList<>();

  private volatile boolean running;

  private volatile boolean autoStartup = true;

  private volatile Duration stopTakes = Duration.ZERO;

  private final int phase;

  Container() {
    this(DEFAULT_PHASE);
  }

  Container(int phase) {
    this.phase = phase;
  }

  @Override
  public void start() {
    this.running = true;
    this.history.add("start");
  }

  @Override
  public void stop() {
    try {
      Thread.sleep(this.stopTakes.toMillis()); // simulates a slow drain, not a wait for a state
    } catch (InterruptedException ex) {
      Thread.currentThread().interrupt();
    }
    this.running = false;
    this.history.add("stop");
  }

  @Override
  public boolean isRunning() {
    return this.running;
  }

  @Override
  public boolean isAutoStartup() {
    return this.autoStartup;
  }

  public void setAutoStartup(boolean autoStartup) {
    this.autoStartup = autoStartup;
  }

  void stopTakes(Duration duration) {
    this.stopTakes = duration;
  }

  @Override
  public int getPhase() {
    return this.phase;
  }
}
