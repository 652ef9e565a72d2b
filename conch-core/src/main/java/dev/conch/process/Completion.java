package dev.conch.process;

import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/** The result of a runner: decided once, then published when everything is released. */
final class Completion {

  private final CountDownLatch done = new CountDownLatch(1);
  private volatile @Nullable Integer result;

  /** Whether the result is decided (the runner may still be releasing). */
  boolean isDecided() {
    return result != null;
  }

  /** Decides the result unless it already is; returns whether this call decided it. */
  synchronized boolean decide(int code) {
    if (result != null) {
      return false;
    }
    result = code;
    return true;
  }

  /** Everything is released: waiters get the result ({@code fallback} if none was decided). */
  void publish(int fallback) {
    decide(fallback);
    done.countDown();
  }

  /** Waits at most {@code timeout} for the published result. */
  OptionalInt await(Duration timeout) throws InterruptedException {
    if (!done.await(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
      return OptionalInt.empty();
    }
    Integer published = result; // decided before the latch opened
    return published == null ? OptionalInt.empty() : OptionalInt.of(published);
  }
}
