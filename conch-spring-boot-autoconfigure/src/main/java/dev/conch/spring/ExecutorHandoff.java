package dev.conch.spring;

import dev.conch.Leadership;
import dev.conch.LeadershipHandler;
import dev.conch.LossReason;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Runs the application's code that conch calls, its {@code @OnLeadership} methods and the listeners
 * of leadership events, on the executor the application gives conch ({@code conchTaskExecutor}),
 * while the core's thread that called waits for it.
 *
 * <p>The core keeps its bounds: it times each hook on its own thread, and every interrupt it sends
 * there (the hook overran, the office is resigned) is passed on to the thread the code runs on. The
 * wait ends only when that code has returned, so the core never takes a hook for done while it
 * still runs, nor starts the next term's hooks beside the last one's. The core's own threads (the
 * lease keeper, the loops, the timer) never run application code and stay platform threads that
 * nothing here can starve.
 *
 * <p>An executor that refuses the task (closed, or bounded and full) gets it run on the calling
 * thread instead: a lose hook must be called.
 */
final class ExecutorHandoff {

  /** Runs everything on the calling thread: the core's hook and event threads. */
  static final ExecutorHandoff CALLER = new ExecutorHandoff(null);

  private static final Log logger = LogFactory.getLog(ExecutorHandoff.class);

  private final @Nullable Executor executor;

  private final AtomicBoolean refusalLogged = new AtomicBoolean();

  ExecutorHandoff(@Nullable Executor executor) {
    this.executor = executor;
  }

  /** {@code handler} with both of its calls made on the executor. */
  LeadershipHandler handler(LeadershipHandler handler) {
    if (this.executor == null) {
      return handler;
    }
    return new LeadershipHandler() {
      @Override
      public void acquired(Leadership leadership) throws Exception {
        run(() -> handler.acquired(leadership));
      }

      @Override
      public void lost(Leadership leadership, LossReason reason) throws Exception {
        run(() -> handler.lost(leadership, reason));
      }

      @Override
      public String toString() {
        return handler.toString();
      }
    };
  }

  /**
   * Runs {@code body} on the executor and returns when it has returned, throwing what it threw.
   * Interrupts of the calling thread are passed on to the body's thread and kept on the caller.
   */
  void run(Body body) throws Exception {
    Executor target = this.executor;
    if (target == null) {
      body.run();
      return;
    }
    Task task = new Task(body);
    try {
      target.execute(task);
    } catch (RejectedExecutionException ex) {
      if (this.refusalLogged.compareAndSet(false, true)) {
        logger.warn(
            "conchTaskExecutor "
                + target
                + " refused conch's task ("
                + ex.getMessage()
                + "); running it, and any it refuses later, on conch's own thread",
            ex);
      }
      body.run();
      return;
    }
    task.await();
  }

  /** Code the application gave conch, which may throw. */
  @FunctionalInterface
  interface Body {
    void run() throws Exception;
  }

  private static final class Task implements Runnable {

    private final Body body;

    private final CompletableFuture<Void> done = new CompletableFuture<>();

    // Guarded by this: the thread running the body, and whether the caller asked for an interrupt.
    private @Nullable Thread thread;
    private boolean interruptAsked;
    private boolean interruptSent;

    Task(Body body) {
      this.body = body;
    }

    @Override
    public void run() {
      synchronized (this) {
        this.thread = Thread.currentThread();
        if (this.interruptAsked) {
          // Asked before the executor took it up: it starts interrupted, as on the core's thread.
          this.thread.interrupt();
          this.interruptSent = true;
        }
      }
      try {
        this.body.run();
        this.done.complete(null);
      } catch (Throwable ex) {
        this.done.completeExceptionally(ex);
      } finally {
        synchronized (this) {
          this.thread = null;
          if (this.interruptSent) {
            // Ours, not the executor's: a pooled thread must not carry it into its next task.
            Thread.interrupted();
          }
        }
      }
    }

    private synchronized void interrupt() {
      this.interruptAsked = true;
      if (this.thread != null && !this.done.isDone()) {
        this.thread.interrupt();
        this.interruptSent = true;
      }
    }

    void await() throws Exception {
      boolean interrupted = false;
      try {
        while (true) {
          try {
            this.done.get();
            return;
          } catch (InterruptedException ex) {
            interrupted = true;
            interrupt();
          } catch (ExecutionException ex) {
            throw rethrow(ex.getCause());
          }
        }
      } finally {
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
    }

    private static Exception rethrow(@Nullable Throwable cause) {
      if (cause instanceof Error error) {
        throw error;
      }
      if (cause instanceof Exception exception) {
        return exception;
      }
      return new IllegalStateException(cause);
    }
  }
}
