package dev.conch;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongBinaryOperator;

/**
 * Exponential back-off with decorrelated jitter: each delay is drawn between the initial delay and
 * three times the previous one, capped. Not thread-safe; one per loop.
 */
public final class Backoff {

  private final long initial;
  private final long cap;
  private final LongBinaryOperator random;
  private long previous;

  /** A back-off from {@code initial} up to {@code cap}, with real randomness. */
  public Backoff(Duration initial, Duration cap) {
    this(initial, cap, (low, high) -> ThreadLocalRandom.current().nextLong(low, high + 1));
  }

  /**
   * A back-off whose random draws come from {@code random} (inclusive bounds), for tests that need
   * a known sequence.
   */
  public Backoff(Duration initial, Duration cap, LongBinaryOperator random) {
    if (initial.isNegative() || initial.isZero() || cap.compareTo(initial) < 0) {
      throw new InvalidArgumentException(
          "backoff", initial + ".." + cap, "a positive initial delay no larger than the cap");
    }
    this.initial = initial.toNanos();
    this.cap = cap.toNanos();
    this.random = random;
    this.previous = this.initial;
  }

  /** The next delay. */
  public Duration next() {
    long high = Math.max(initial, Math.min(cap, saturatedTimes3(previous)));
    previous = Math.min(cap, random.applyAsLong(initial, high));
    return Duration.ofNanos(previous);
  }

  /** Starts again from the initial delay (after a success). */
  public void reset() {
    previous = initial;
  }

  private static long saturatedTimes3(long value) {
    return value > Long.MAX_VALUE / 3 ? Long.MAX_VALUE : value * 3;
  }
}
