package dev.conch;

/**
 * A monotonic clock in nanoseconds. Every deadline in conch is measured on one, so that a step of
 * the wall clock (NTP) never moves it; tests inject their own.
 */
@FunctionalInterface
public interface Ticker {

  /** {@link System#nanoTime()}. */
  Ticker SYSTEM = System::nanoTime;

  /** The current value in nanoseconds; only differences between values have a meaning. */
  long nanoTime();
}
