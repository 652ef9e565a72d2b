package dev.conch.spring.support;

import dev.conch.Leadership;
import dev.conch.LeadershipHandler;
import dev.conch.LossReason;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

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
 * thread instead: a lose hook must be called. So does one closed after it took the task but before
 * it started it: Spring's {@link SimpleAsyncTaskExecutor} drops a task whose thread starts after
 * {@code close()}, a pool shut down drops what it had queued, and the caller would wait for it
 * forever (on the core's event threads, which every election of the process shares). The task is
 * claimed once, by the executor's thread or by the caller, so its body runs exactly once.
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
    Task task = new Task(body, () -> closed(target));
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

  /**
   * Whether {@code executor} was closed or shut down, so that a task it took but has not started
   * may never run. An executor of a kind not known here is taken to run what it took.
   */
  private static boolean closed(Executor executor) {
    if (executor instanceof SimpleAsyncTaskExecutor simple) {
      return !simple.isActive();
    }
    if (executor instanceof ExecutorService service) {
      return service.isShutdown();
    }
    try {
      if (executor instanceof ThreadPoolTaskExecutor pool) {
        return pool.getThreadPoolExecutor().isShutdown();
      }
      if (executor instanceof ThreadPoolTaskScheduler scheduler) {
        return scheduler.getScheduledExecutor().isShutdown();
      }
    } catch (IllegalStateException ex) {
      // Not initialized, or destroyed: nothing it took will run.
      return true;
    }
    return false;
  }

  /** Code the application gave conch, which may throw. */
  @FunctionalInterface
  interface Body {
    void run() throws Exception;
  }

  private static final class Task implements Runnable {

    /** How often a caller whose task has not started checks whether the executor was closed. */
    private static final long CLOSED_CHECK_MILLIS = 50;

    private final Body body;

    private final BooleanSupplier executorClosed;

    private final CompletableFuture<Void> done = new CompletableFuture<>();

    // Guarded by this: whether a thread took the body (the executor's, or the caller's once given
    // back), the executor's thread running it, and whether the caller asked for an interrupt.
    private boolean claimed;
    private @Nullable Thread thread;
    private boolean interruptAsked;
    private boolean interruptSent;

    Task(Body body, BooleanSupplier executorClosed) {
      this.body = body;
      this.executorClosed = executorClosed;
    }

    @Override
    public void run() {
      synchronized (this) {
        if (this.claimed) {
          // The caller took it back (the executor was closed before this thread started).
          return;
        }
        this.claimed = true;
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

    /** Claims the body for the caller if no thread took it yet. */
    private synchronized boolean takeBack() {
      if (this.claimed) {
        return false;
      }
      this.claimed = true;
      return true;
    }

    private synchronized boolean started() {
      return this.claimed;
    }

    void await() throws Exception {
      boolean interrupted = false;
      try {
        while (true) {
          try {
            if (started()) {
              this.done.get();
              return;
            }
            try {
              this.done.get(CLOSED_CHECK_MILLIS, TimeUnit.MILLISECONDS);
              return;
            } catch (TimeoutException notYet) {
              if (this.executorClosed.getAsBoolean() && takeBack()) {
                runHere(interrupted);
                return;
              }
            }
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

    /**
     * Runs the body on the caller, as for an executor that refused it: interrupted if the caller
     * was (the only way an interrupt is asked for).
     */
    private void runHere(boolean interrupted) throws Exception {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
      this.body.run();
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
