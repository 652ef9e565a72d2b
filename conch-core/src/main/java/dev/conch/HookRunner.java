package dev.conch;

import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the acquire and lose hooks of one election on a thread other than the loop's, so that the
 * election loop can bound them: by the hook timeout, and an acquire hook also by the end of the
 * term it starts. The threads are shared by every election ({@link SharedThreads#HOOKS}) and named
 * after the office while they run its hook. A hook that does not return in time is interrupted and
 * left behind; the next hook gets another thread.
 */
final class HookRunner implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(FencedElection.class);

  private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  private final ElectionOptions options;
  private final Ticker ticker;
  private final String name;
  private boolean closed;

  HookRunner(ElectionOptions options, Ticker ticker) {
    this.options = options;
    this.ticker = ticker;
    this.name = "conch-hooks-" + options.office();
  }

  /**
   * Runs one acquire hook until it returns, fails, times out, or {@code ended} names a reason the
   * term is over. The handler is added to {@code started} as soon as it is called, so that its lose
   * hook runs whatever became of the acquire: what it began must be stopped.
   *
   * @return null when it succeeded, else why leadership must end
   */
  LossReason acquire(
      LeadershipHandler handler,
      Leadership term,
      Supplier<LossReason> ended,
      List<LeadershipHandler> started) {
    LossReason end = ended.get();
    if (end != null) {
      // Over before it began (a process frozen since the win): nothing is started at all.
      log.warn("office {}: leadership ended ({}) before acquire hooks ran", term.office(), end);
      return end;
    }
    Future<?> hook;
    try {
      hook =
          submit(
              () -> {
                handler.acquired(term);
                return null;
              });
    } catch (RejectedExecutionException e) {
      log.warn("office {}: election closed; acquire hook not run", term.office());
      return LossReason.CLOSED;
    }
    started.add(handler);
    long timeoutAt = ticker.nanoTime() + options.hookTimeout().toNanos();
    while (true) {
      end = ended.get();
      if (end != null) {
        abandon(hook);
        log.warn("office {}: leadership ended ({}) while acquire hooks ran", term.office(), end);
        return end;
      }
      if (ticker.nanoTime() - timeoutAt >= 0) {
        abandon(hook);
        log.warn(
            "office {}: acquire hook timed out after {}; stepping down",
            term.office(),
            Durations.format(options.hookTimeout()));
        return LossReason.ACQUIRE_FAILED;
      }
      try {
        hook.get(Math.min(timeoutAt - ticker.nanoTime(), POLL_NANOS), TimeUnit.NANOSECONDS);
        return null;
      } catch (TimeoutException e) {
        // Not done yet: look at the term and the clock again.
      } catch (ExecutionException e) {
        log.warn("office {}: acquire hook failed; stepping down", term.office(), e.getCause());
        return LossReason.ACQUIRE_FAILED;
      } catch (InterruptedException e) {
        abandon(hook);
        return LossReason.CLOSED;
      }
    }
  }

  /**
   * Runs one lose hook, best effort: failures are logged; it is bounded by the hook timeout, and
   * warned about when an involuntary loss finds it still running after the stop timeout (the time
   * the loss lead leaves before the lease could expire).
   */
  void lose(LeadershipHandler handler, Leadership term, LossReason reason) {
    Future<?> hook;
    try {
      hook =
          submit(
              () -> {
                handler.lost(term, reason);
                return null;
              });
    } catch (RejectedExecutionException e) {
      log.error("office {}: election closed before its lose hook could run", term.office());
      return;
    }
    try {
      try {
        hook.get(options.stopTimeout().toNanos(), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        if (!reason.isVoluntary()) {
          log.warn(
              "office {}: lose hook still running after the stop timeout ({}): its work may"
                  + " overlap a successor's; raise the stop timeout or make the hook faster",
              term.office(),
              Durations.format(options.stopTimeout()));
        }
        hook.get(
            options.hookTimeout().minus(options.stopTimeout()).toNanos(), TimeUnit.NANOSECONDS);
      }
    } catch (TimeoutException e) {
      abandon(hook);
      log.warn(
          "office {}: lose hook timed out after {}",
          term.office(),
          Durations.format(options.hookTimeout()));
    } catch (ExecutionException e) {
      log.warn("office {}: lose hook failed", term.office(), e.getCause());
    } catch (InterruptedException e) {
      abandon(hook);
      Thread.currentThread().interrupt();
    }
  }

  /**
   * @throws RejectedExecutionException after {@link #close()}: a hook that comes that late (a loop
   *     that overran its stop bound) is not run
   */
  private synchronized Future<?> submit(Callable<?> hook) {
    if (closed) {
      throw new RejectedExecutionException("hooks of " + name + " are closed");
    }
    FutureTask<?> task = new FutureTask<>(hook);
    SharedThreads.HOOKS.execute(() -> SharedThreads.runAs(name, task));
    return task;
  }

  /** Gives up on a hook that overran: interrupts it and leaves it behind. */
  private void abandon(Future<?> hook) {
    hook.cancel(true);
  }

  @Override
  public synchronized void close() {
    closed = true;
  }
}
