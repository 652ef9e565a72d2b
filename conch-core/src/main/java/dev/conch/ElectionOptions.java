package dev.conch;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import org.jspecify.annotations.Nullable;

/**
 * How one candidate takes part in one office. Built with {@link #builder(String)} (or {@link
 * #forOffice(String)} for the defaults); every value is checked by {@link Setting}, so a bad one is
 * refused before anything starts.
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
 * @param priority this candidate's priority, stored in the holder JSON: higher leads first where a
 *     group balances the office ({@link OfficeGroup}); equal priorities never move
 * @param hookThreads makes the thread each hook runs on (e.g. virtual threads), or {@code null} for
 *     the threads every election of the process shares; either way conch owns them, and a hook
 *     always gets one
 */
public record ElectionOptions(
    String office,
    @Nullable String candidateId,
    Duration hookTimeout,
    Duration stopTimeout,
    Duration safetyMargin,
    Gate gate,
    int eventBuffer,
    Duration retryInitial,
    Duration retryMax,
    int priority,
    @Nullable ThreadFactory hookThreads) {

  /** Default {@link #hookTimeout()}: 30 s. */
  public static final Duration DEFAULT_HOOK_TIMEOUT =
      Objects.requireNonNull(Setting.HOOK_TIMEOUT.defaultValue());

  /** Default {@link #stopTimeout()}: 1 s. */
  public static final Duration DEFAULT_STOP_TIMEOUT =
      Objects.requireNonNull(Setting.STOP_TIMEOUT.defaultValue());

  /** Default {@link #safetyMargin()}: 500 ms. */
  public static final Duration DEFAULT_SAFETY_MARGIN =
      Objects.requireNonNull(Setting.SAFETY_MARGIN.defaultValue());

  /** Default {@link #eventBuffer()}: 16. */
  public static final int DEFAULT_EVENT_BUFFER =
      Objects.requireNonNull(Setting.EVENT_BUFFER.defaultValue());

  /** Checks every value. */
  public ElectionOptions {
    Setting.OFFICE.require(office);
    Setting.CANDIDATE_ID.require(candidateId);
    Setting.HOOK_TIMEOUT.require(hookTimeout);
    Setting.STOP_TIMEOUT.require(stopTimeout);
    Setting.SAFETY_MARGIN.require(safetyMargin);
    Setting.EVENT_BUFFER.require(eventBuffer);
    Setting.RETRY_INITIAL.require(retryInitial);
    Setting.RETRY_MAX.require(retryMax);
    Setting.PRIORITY.require(priority);
    if (retryMax.compareTo(retryInitial) < 0) {
      throw Setting.RETRY_MAX.invalid(retryMax, "at least retry-initial");
    }
    Objects.requireNonNull(gate, "gate");
  }

  /** The defaults for {@code office}. */
  public static ElectionOptions forOffice(String office) {
    return builder(office).build();
  }

  /** A builder for {@code office}, every other value its default. */
  public static Builder builder(String office) {
    return new Builder(office);
  }

  /** A builder that starts from these options. */
  public Builder toBuilder() {
    Builder builder = new Builder(office);
    builder.candidateId = candidateId;
    builder.hookTimeout = hookTimeout;
    builder.stopTimeout = stopTimeout;
    builder.safetyMargin = safetyMargin;
    builder.gate = gate;
    builder.eventBuffer = eventBuffer;
    builder.retryInitial = retryInitial;
    builder.retryMax = retryMax;
    builder.priority = priority;
    builder.hookThreads = hookThreads;
    return builder;
  }

  /** How long before the lease deadline leadership is dropped: stop timeout plus safety margin. */
  public Duration lossLead() {
    return stopTimeout.plus(safetyMargin);
  }

  /** Options under construction; {@link #build()} checks them all. */
  public static final class Builder {

    private final String office;
    private @Nullable String candidateId = Setting.CANDIDATE_ID.defaultValue();
    private Duration hookTimeout = DEFAULT_HOOK_TIMEOUT;
    private Duration stopTimeout = DEFAULT_STOP_TIMEOUT;
    private Duration safetyMargin = DEFAULT_SAFETY_MARGIN;
    private Gate gate = Gate.OPEN;
    private int eventBuffer = DEFAULT_EVENT_BUFFER;
    private Duration retryInitial = Objects.requireNonNull(Setting.RETRY_INITIAL.defaultValue());
    private Duration retryMax = Objects.requireNonNull(Setting.RETRY_MAX.defaultValue());
    private int priority = Objects.requireNonNull(Setting.PRIORITY.defaultValue());
    private @Nullable ThreadFactory hookThreads;

    private Builder(String office) {
      this.office = office;
    }

    /** The candidate id stored in the holder JSON; {@code null} (the default) is host:pid. */
    public Builder candidateId(@Nullable String candidateId) {
      this.candidateId = candidateId;
      return this;
    }

    /** How long each acquire or lose hook may run (30 s). */
    public Builder hookTimeout(Duration hookTimeout) {
      this.hookTimeout = hookTimeout;
      return this;
    }

    /** How long this candidate needs to stop its work on loss (1 s). */
    public Builder stopTimeout(Duration stopTimeout) {
      this.stopTimeout = stopTimeout;
      return this;
    }

    /** Kept free before the lease deadline for scheduling delays and clock drift (500 ms). */
    public Builder safetyMargin(Duration safetyMargin) {
      this.safetyMargin = safetyMargin;
      return this;
    }

    /** Consulted before each campaign ({@link Gate#OPEN}). */
    public Builder gate(Gate gate) {
      this.gate = gate;
      return this;
    }

    /** How many events may wait for slow listeners before new ones are dropped (16). */
    public Builder eventBuffer(int eventBuffer) {
      this.eventBuffer = eventBuffer;
      return this;
    }

    /** The first delay before campaigning again after a failure or a loss (250 ms). */
    public Builder retryInitial(Duration retryInitial) {
      this.retryInitial = retryInitial;
      return this;
    }

    /**
     * Makes the thread each acquire and lose hook runs on, a new one per hook: e.g. a factory of
     * virtual threads. {@code null} (the default): the hook threads every election shares.
     */
    public Builder hookThreads(@Nullable ThreadFactory hookThreads) {
      this.hookThreads = hookThreads;
      return this;
    }

    /** The largest delay before campaigning again, at least retry-initial (2 s). */
    public Builder retryMax(Duration retryMax) {
      this.retryMax = retryMax;
      return this;
    }

    /** This candidate's priority (0): higher leads first where a group balances the office. */
    public Builder priority(int priority) {
      this.priority = priority;
      return this;
    }

    /**
     * The options.
     *
     * @throws InvalidArgumentException naming the setting, the value and what is accepted
     */
    public ElectionOptions build() {
      return new ElectionOptions(
          office,
          candidateId,
          hookTimeout,
          stopTimeout,
          safetyMargin,
          gate,
          eventBuffer,
          retryInitial,
          retryMax,
          priority,
          hookThreads);
    }
  }
}
