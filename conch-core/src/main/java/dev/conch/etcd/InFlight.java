package dev.conch.etcd;

import dev.conch.Ticker;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A bounded number of requests under way at once; the others wait in line, in order, without a
 * thread. A session sends its campaigns' requests through one, so that a process starting a
 * thousand offices does not hand etcd a thousand transactions in the same millisecond: etcd would
 * answer late, the lease's renewals among them, and every term would be over before it began.
 *
 * <p>How many may be under way follows how fast etcd answers (as a group's moves do, {@link
 * GroupMove}): one more after an answer within a quarter of {@code slow}, half as many (at most
 * once per {@code slow}) after one that took longer than {@code slow}, never fewer than one nor
 * more than the limit; and one only once the session's lease failed a renewal ({@link
 * #strained()}). Three sessions starting 10,000 offices each at once on one etcd otherwise kept
 * their confirming reads waiting until their leases lapsed, and the offices campaigned again.
 */
final class InFlight {

  // The tasks this thread is to run once the one it runs returns (see run).
  private static final ThreadLocal<@Nullable ArrayDeque<Runnable>> TRAMPOLINE = new ThreadLocal<>();

  private final int limit;
  private final Ticker ticker;
  private final LongSupplier slow;
  private final Queue<Runnable> waiting = new ArrayDeque<>();
  private int running;
  private int window;
  private long lastCut;

  /** A line of a fixed width: {@code limit} under way at once. */
  InFlight(int limit) {
    this(limit, Ticker.SYSTEM, () -> Long.MAX_VALUE);
  }

  /**
   * A line of at most {@code limit} under way at once, fewer while etcd answers slower than {@code
   * slow} (nanoseconds, read at each answer).
   */
  InFlight(int limit, Ticker ticker, LongSupplier slow) {
    this.limit = limit;
    this.ticker = ticker;
    this.slow = slow;
    this.window = limit;
    this.lastCut = ticker.nanoTime();
  }

  /**
   * Sends {@code call} now, or once fewer than the limit are under way; its answer completes the
   * future.
   */
  <T> CompletableFuture<T> send(Supplier<CompletableFuture<T>> call) {
    CompletableFuture<T> answer = new CompletableFuture<>();
    Runnable start =
        () -> {
          long sentAt = ticker.nanoTime();
          CompletableFuture<T> sent;
          try {
            sent = call.get();
          } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
          }
          sent.whenComplete(
              (value, error) -> {
                answered(ticker.nanoTime() - sentAt);
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
      now = running < window;
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

  /** One under way at a time from now on, until answers come quickly again. */
  synchronized void strained() {
    window = 1;
    lastCut = ticker.nanoTime();
  }

  /** How many may be under way at once now. */
  synchronized int window() {
    return window;
  }

  private synchronized void answered(long took) {
    long slowNanos = slow.getAsLong();
    long now = ticker.nanoTime();
    if (took <= slowNanos / 4) {
      window = Math.min(limit, window + 1);
    } else if (took > slowNanos && now - lastCut > slowNanos) {
      window = Math.max(1, window / 2);
      lastCut = now;
    }
  }

  /** The answer of one under way: the next in line starts, as many as the window has room for. */
  private void next() {
    ArrayDeque<Runnable> started = new ArrayDeque<>();
    synchronized (this) {
      running--;
      while (running < window && !waiting.isEmpty()) {
        started.add(waiting.poll());
        running++;
      }
    }
    for (Runnable queued : started) {
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
