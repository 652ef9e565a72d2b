package dev.conch.etcd;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * At most a fixed number of requests under way at once; the others wait in line, in order, without
 * a thread. A session sends its campaigns' requests through one, so that a process starting a
 * thousand offices does not hand etcd a thousand transactions in the same millisecond: etcd would
 * answer late, the lease's renewals among them, and every term would be over before it began.
 */
final class InFlight {

  // The tasks this thread is to run once the one it runs returns (see run).
  private static final ThreadLocal<@Nullable ArrayDeque<Runnable>> TRAMPOLINE = new ThreadLocal<>();

  private final int limit;
  private final Queue<Runnable> waiting = new ArrayDeque<>();
  private int running;

  InFlight(int limit) {
    this.limit = limit;
  }

  /**
   * Sends {@code call} now, or once fewer than the limit are under way; its answer completes the
   * future.
   */
  <T> CompletableFuture<T> send(Supplier<CompletableFuture<T>> call) {
    CompletableFuture<T> answer = new CompletableFuture<>();
    Runnable start =
        () -> {
          CompletableFuture<T> sent;
          try {
            sent = call.get();
          } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
          }
          sent.whenComplete(
              (value, error) -> {
                next();
                if (error != null) {
                  answer.completeExceptionally(error);
                } else {
                  answer.complete(value);
                }
              });
        };
    boolean now;
    synchronized (this) {
      now = running < limit;
      if (now) {
        running++;
      } else {
        waiting.add(start);
      }
    }
    if (now) {
      run(start);
    }
    return answer;
  }

  private void next() {
    Runnable queued;
    synchronized (this) {
      queued = waiting.poll();
      if (queued == null) {
        running--;
      }
    }
    if (queued != null) {
      run(queued);
    }
  }

  /**
   * Runs {@code task}, or, when this thread is already running one, after it: a call that answers
   * at once (a closed client fails every call so) starts the next from its answer, and ten thousand
   * of them in line must not nest ten thousand deep on one stack.
   */
  private static void run(Runnable task) {
    ArrayDeque<Runnable> later = TRAMPOLINE.get();
    if (later != null) {
      later.add(task);
      return;
    }
    later = new ArrayDeque<>();
    TRAMPOLINE.set(later);
    try {
      for (Runnable next = task; next != null; next = later.poll()) {
        next.run();
      }
    } finally {
      TRAMPOLINE.remove();
    }
  }
}
