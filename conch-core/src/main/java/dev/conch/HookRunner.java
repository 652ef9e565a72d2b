package dev.conch;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import org.jspecify.annotations.Nullable;

/**
 * Starts the acquire and lose hooks of one election on the hook threads all elections share ({@link
 * SharedThreads#HOOKS}), named after the office while they run its hook, so that the election's
 * loop never waits on user code: it learns that a hook returned from {@link Hook#done}, and bounds
 * it by its own timers. A hook given up is interrupted and left behind; the next hook gets another
 * thread.
 */
final class HookRunner implements AutoCloseable {

  private final String name;
  private final @Nullable ThreadFactory threads;
  private boolean closed;

  /**
   * @param office the office whose hooks run here
   * @param threads makes a thread for each hook, or {@code null} for the shared hook threads
   */
  HookRunner(String office, @Nullable ThreadFactory threads) {
    this.name = "conch-hooks-" + office;
    this.threads = threads;
  }

  /**
   * Starts {@code body} on a hook thread.
   *
   * @throws RejectedExecutionException after {@link #close()}: a hook that comes that late (a loop
   *     that overran its stop bound) is not run
   */
  synchronized Hook start(Body body) {
    if (closed) {
      throw new RejectedExecutionException("hooks of " + name + " are closed");
    }
    Hook hook = new Hook(body);
    if (threads == null) {
      SharedThreads.HOOKS.execute(() -> SharedThreads.runAs(name, hook::run));
    } else {
      Thread thread = threads.newThread(hook::run);
      if (thread == null) {
        throw new RejectedExecutionException("the hook thread factory of " + name + " made none");
      }
      thread.setName(name);
      thread.start();
    }
    return hook;
  }

  @Override
  public synchronized void close() {
    closed = true;
  }

  /** A hook's code: a handler's method, which may throw. */
  @FunctionalInterface
  interface Body {
    void run() throws Exception;
  }

  /** A hook under way: {@link #done} completes when it returns, or with what it threw. */
  static final class Hook {

    final CompletableFuture<Void> done = new CompletableFuture<>();
    private final FutureTask<Void> task;
    private @Nullable Thread thread; // while the body runs; guarded by this
    private boolean interruptAsked; // guarded by this

    private Hook(Body body) {
      this.task =
          new FutureTask<>(
              () -> {
                body.run();
                return null;
              }) {
            @Override
            protected void done() {
              if (isCancelled()) {
                Hook.this.done.cancel(false);
                return;
              }
              try {
                get();
                Hook.this.done.complete(null);
              } catch (ExecutionException e) {
                Hook.this.done.completeExceptionally(e.getCause());
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                Hook.this.done.completeExceptionally(e);
              }
            }
          };
    }

    private void run() {
      synchronized (this) {
        thread = Thread.currentThread();
        if (interruptAsked) {
          thread.interrupt(); // asked before its thread took it up: it starts interrupted
        }
      }
      try {
        task.run();
      } finally {
        synchronized (this) {
          thread = null;
        }
      }
    }

    /**
     * Asks a hook to return soon: interrupts it, or, if its thread has not taken it up yet, has it
     * start interrupted; what it returns or throws goes to {@link #done}. Its body is run either
     * way (a lose hook must be called). Once the body has returned, nothing is interrupted.
     */
    synchronized void interrupt() {
      interruptAsked = true;
      if (thread != null && !task.isDone()) {
        thread.interrupt();
      }
    }

    /**
     * Gives up on an acquire hook whose term ended: interrupts it and leaves it behind; one that
     * has not started yet never runs.
     */
    void abandon() {
      task.cancel(true);
    }
  }
}
