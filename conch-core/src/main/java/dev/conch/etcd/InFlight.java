package dev.conch.etcd;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * At most a fixed number of requests under way at once; the others wait in line, in order, without
 * a thread. A session sends its campaigns' requests through one, so that a process starting a
 * thousand offices does not hand etcd a thousand transactions in the same millisecond: etcd would
 * answer late, the lease's renewals among them, and every term would be over before it began.
 */
final class InFlight {

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
      start.run();
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
      queued.run();
    }
  }
}
