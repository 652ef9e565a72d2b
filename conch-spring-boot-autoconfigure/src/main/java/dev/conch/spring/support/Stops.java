package dev.conch.spring.support;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The asynchronous stops of a {@code SmartLifecycle}: a future that completes by itself, or a task
 * on a named thread of its own, and the lifecycle processor's callback once it has ended. The
 * processor waits for the callback at most {@code spring.lifecycle.timeout-per-shutdown-phase}; a
 * stop that takes longer goes on, and a later start waits for it.
 */
final class Stops {

  private static final Log logger = LogFactory.getLog(Stops.class);

  private final Object monitor = new Object();

  // Guarded by monitor.
  private int running;

  /** Runs {@code task} on a thread named {@code name}, then {@code callback}. */
  void run(String name, Runnable task, Runnable callback) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    Thread thread =
        new Thread(
            () -> {
              try {
                task.run();
              } catch (RuntimeException | Error ex) {
                logger.warn("Stopping " + name + " failed", ex);
              } finally {
                done.complete(null);
              }
            },
            name);
    // Never holds the JVM up: the shutdown phase's timeout is the bound the user chose.
    thread.setDaemon(true);
    track(done, callback);
    thread.start();
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
