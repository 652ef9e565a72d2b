package dev.conch.spring.boot.autoconfigure;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The asynchronous stops of a {@code SmartLifecycle}: futures that complete by themselves, or tasks
 * each on a named thread of its own, all of them in parallel, and the lifecycle processor's
 * callback once every one has ended. The processor waits for the callback at most {@code
 * spring.lifecycle.timeout-per-shutdown-phase}; a stop that takes longer goes on, and a later start
 * waits for it.
 */
final class Stops {

  private static final Log logger = LogFactory.getLog(Stops.class);

  private final Object monitor = new Object();

  // Guarded by monitor.
  private int running;

  /** Runs {@code task} on a thread named {@code name}, then {@code callback}. */
  void run(String name, Runnable task, Runnable callback) {
    run(Map.of(name, task), callback);
  }

  /** Runs each task on a thread named by its key, all at once; {@code callback} after the last. */
  void run(Map<String, Runnable> tasks, Runnable callback) {
    if (tasks.isEmpty()) {
      callback.run();
      return;
    }
    AtomicInteger left = new AtomicInteger(tasks.size());
    synchronized (this.monitor) {
      this.running += tasks.size();
    }
    tasks.forEach(
        (name, task) -> {
          Thread thread =
              new Thread(
                  () -> {
                    try {
                      task.run();
                    } catch (RuntimeException | Error ex) {
                      logger.warn("Stopping " + name + " failed", ex);
                    } finally {
                      synchronized (this.monitor) {
                        this.running--;
                        this.monitor.notifyAll();
                      }
                      if (left.decrementAndGet() == 0) {
                        callback.run();
                      }
                    }
                  },
                  name);
          // Never holds the JVM up: the shutdown phase's timeout is the bound the user chose.
          thread.setDaemon(true);
          thread.start();
        });
  }

  /** Counts {@code work} as a stop under way until it completes, then calls {@code callback}. */
  void track(CompletableFuture<?> work, Runnable callback) {
    synchronized (this.monitor) {
      this.running++;
    }
    work.whenComplete(
        (ok, error) -> {
          synchronized (this.monitor) {
            this.running--;
            this.monitor.notifyAll();
          }
          callback.run();
        });
  }

  /** Waits until every stop has ended; each is bounded by the core's own timeouts. */
  void awaitAll() {
    synchronized (this.monitor) {
      while (this.running > 0) {
        try {
          this.monitor.wait();
        } catch (InterruptedException ex) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  /** Runs an asynchronous stop and waits until it calls back: the synchronous {@code stop()}. */
  static void await(Consumer<Runnable> stop) {
    CountDownLatch done = new CountDownLatch(1);
    stop.accept(done::countDown);
    try {
      done.await();
    } catch (InterruptedException ex) {
      Thread.currentThread().interrupt();
    }
  }
}
