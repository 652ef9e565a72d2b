package dev.conch;

import java.time.Duration;
import java.util.Objects;

/**
 * How one candidate takes part in one office. Built with {@link #forOffice(String)}; every value is
 * checked when set, so a bad one is refused before anything starts.
 *
 * @param office the office
 * @param candidateId the candidate id stored in the holder JSON; {@code null} means {@code
 *     host:pid}
 * @param hookTimeout how long each acquire or lose hook may run
 * @param stopTimeout how long this candidate needs to stop its work on loss; leadership is dropped
 *     this long, plus the safety margin, before the lease could expire
 * @param safetyMargin kept free before the lease deadline for scheduling delays and clock drift
 * @param gate consulted before each campaign
 * @param eventBuffer how many events may wait for slow listeners before new ones are dropped
 * @param retryInitial the first delay before campaigning again after a failure or a loss
 * @param retryMax the largest such delay
 */
public record ElectionOptions(
    String office,
    String candidateId,
    Duration hookTimeout,
    Duration stopTimeout,
    Duration safetyMargin,
    Gate gate,
    int eventBuffer,
    Duration retryInitial,
    Duration retryMax) {

  /** Default {@link #hookTimeout()}: 30 s. */
  public static final Duration DEFAULT_HOOK_TIMEOUT = Duration.ofSeconds(30);

  /** Default {@link #stopTimeout()}: 1 s. */
  public static final Duration DEFAULT_STOP_TIMEOUT = Duration.ofSeconds(1);

  /** Default {@link #safetyMargin()}: 500 ms. */
  public static final Duration DEFAULT_SAFETY_MARGIN = Duration.ofMillis(500);

  /** Default {@link #eventBuffer()}: 16. */
  public static final int DEFAULT_EVENT_BUFFER = 16;

  /** Checks every value. */
  public ElectionOptions {
    Offices.requireValidName(office);
    requirePositive("hook-timeout", hookTimeout);
    requireNotNegative("stop-timeout", stopTimeout);
    requireNotNegative("safety-margin", safetyMargin);
    requirePositive("retry-initial", retryInitial);
    requirePositive("retry-max", retryMax);
    if (retryMax.compareTo(retryInitial) < 0) {
      throw new InvalidArgumentException(
          "retry-max", Durations.format(retryMax), "at least retry-initial");
    }
    if (eventBuffer < 1) {
      throw new InvalidArgumentException("event-buffer", eventBuffer, "at least 1");
    }
    Objects.requireNonNull(gate, "gate");
  }

  /** The defaults for {@code office}. */
  public static ElectionOptions forOffice(String office) {
    return new ElectionOptions(
        office,
        null,
        DEFAULT_HOOK_TIMEOUT,
        DEFAULT_STOP_TIMEOUT,
        DEFAULT_SAFETY_MARGIN,
        Gate.OPEN,
        DEFAULT_EVENT_BUFFER,
        Duration.ofMillis(250),
        Duration.ofSeconds(2));
  }

  /** With this candidate id. */
  public ElectionOptions withCandidateId(String id) {
    return new ElectionOptions(
        office,
        id,
        hookTimeout,
        stopTimeout,
        safetyMargin,
        gate,
        eventBuffer,
        retryInitial,
        retryMax);
  }

  /** With this hook timeout. */
  public ElectionOptions withHookTimeout(Duration timeout) {
    return new ElectionOptions(
        office,
        candidateId,
        timeout,
        stopTimeout,
        safetyMargin,
        gate,
        eventBuffer,
        retryInitial,
        retryMax);
  }

  /** With this stop timeout. */
  public ElectionOptions withStopTimeout(Duration timeout) {
    return new ElectionOptions(
        office,
        candidateId,
        hookTimeout,
        timeout,
        safetyMargin,
        gate,
        eventBuffer,
        retryInitial,
        retryMax);
  }

  /** With this safety margin. */
  public ElectionOptions withSafetyMargin(Duration margin) {
    return new ElectionOptions(
        office,
        candidateId,
        hookTimeout,
        stopTimeout,
        margin,
        gate,
        eventBuffer,
        retryInitial,
        retryMax);
  }

  /** With this gate. */
  public ElectionOptions withGate(Gate newGate) {
    return new ElectionOptions(
        office,
        candidateId,
        hookTimeout,
        stopTimeout,
        safetyMargin,
        newGate,
        eventBuffer,
        retryInitial,
        retryMax);
  }

  /** With this event buffer size. */
  public ElectionOptions withEventBuffer(int size) {
    return new ElectionOptions(
        office,
        candidateId,
        hookTimeout,
        stopTimeout,
        safetyMargin,
        gate,
        size,
        retryInitial,
        retryMax);
  }

  /** With these retry delays. */
  public ElectionOptions withRetry(Duration initial, Duration max) {
    return new ElectionOptions(
        office,
        candidateId,
        hookTimeout,
        stopTimeout,
        safetyMargin,
        gate,
        eventBuffer,
        initial,
        max);
  }

  /** How long before the lease deadline leadership is dropped: stop timeout plus safety margin. */
  public Duration lossLead() {
    return stopTimeout.plus(safetyMargin);
  }

  private static void requirePositive(String name, Duration value) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new InvalidArgumentException(
          name, value == null ? null : Durations.format(value), "a positive duration");
    }
  }

  private static void requireNotNegative(String name, Duration value) {
    if (value == null || value.isNegative()) {
      throw new InvalidArgumentException(
          name, value == null ? null : Durations.format(value), "a duration of 0 or more");
    }
  }
}
