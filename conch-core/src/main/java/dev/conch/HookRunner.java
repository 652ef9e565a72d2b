package dev.conch;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Runs hooks on a thread of their own, so that the election loop can bound them. A hook that does
 * not return in time is interrupted and its thread abandoned (it is a daemon); the next hook gets a
 * fresh one.
 */
final class HookRunner implements AutoCloseable {

  private final String name;
  private ExecutorService executor;

  HookRunner(String office) {
    this.name = "conch-hooks-" + office;
  }

  synchronized Future<?> submit(Callable<?> hook) {
    if (executor == null) {
      executor =
          Executors.newSingleThreadExecutor(
              task -> {
                Thread thread = new Thread(task, name);
                thread.setDaemon(true);
                return thread;
              });
    }
    return executor.submit(hook);
  }

  /** Gives up on a hook that overran: interrupts it and leaves its thread behind. */
  synchronized void abandon(Future<?> hook) {
    hook.cancel(true);
    if (executor != null) {
      executor.shutdownNow();
      executor = null;
    }
  }

  @Override
  public synchronized void close() {
    if (executor != null) {
      executor.shutdownNow();
      executor = null;
    }
  }
}
