package dev.conch;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How one member takes part in an {@link OfficeGroup}. Built with {@link #builder(String)} (or
 * {@link #forGroup(String)} for the defaults); every value is checked by {@link Setting}, so a bad
 * one is refused before anything starts.
 *
 * @param name the group's name (a valid office name)
 * @param candidateId this member's id: the candidate id of its elections; {@code null} means {@code
 *     host:pid}, as for an election
 * @param priority this member's priority; higher leads first, equal priorities never move
 * @param delay how long a membership change must be quiet before anything moves
 * @param minTenure how long a term lasts at least before it is handed to a member of higher
 *     priority
 */
public record GroupOptions(
    String name, @Nullable String candidateId, int priority, Duration delay, Duration minTenure) {

  /** Default {@link #delay()}: 5 s (see {@link Setting#BALANCE_DELAY} for why). */
  public static final Duration DEFAULT_DELAY =
      Objects.requireNonNull(Setting.BALANCE_DELAY.defaultValue());

  /** Default {@link #minTenure()}: 15 s (see {@link Setting#MIN_TENURE} for why). */
  public static final Duration DEFAULT_MIN_TENURE =
      Objects.requireNonNull(Setting.MIN_TENURE.defaultValue());

  /** Checks every value. */
  public GroupOptions {
    Setting.GROUP.require(name);
    Setting.CANDIDATE_ID.require(candidateId);
    Setting.PRIORITY.require(priority);
    Setting.BALANCE_DELAY.require(delay);
    Setting.MIN_TENURE.require(minTenure);
  }

  /** The defaults for group {@code name}. */
  public static GroupOptions forGroup(String name) {
    return builder(name).build();
  }

  /** A builder for group {@code name}, every other value its default. */
  public static Builder builder(String name) {
    return new Builder(name);
  }

  /** The member id as the elections store it: the candidate id, or {@code host:pid}. */
  public String memberId() {
    return Objects.requireNonNull(Holder.self(name, candidateId, null).id());
  }

  /** Options under construction; {@link #build()} checks them all. */
  public static final class Builder {

    private final String name;
    private @Nullable String candidateId;
    private int priority = Objects.requireNonNull(Setting.PRIORITY.defaultValue());
    private Duration delay = DEFAULT_DELAY;
    private Duration minTenure = DEFAULT_MIN_TENURE;

    private Builder(String name) {
      this.name = name;
    }

    /** This member's id, the candidate id of its elections; {@code null} (default) is host:pid. */
    public Builder candidateId(@Nullable String candidateId) {
      this.candidateId = candidateId;
      return this;
    }

    /** This member's priority (0); higher leads first. */
    public Builder priority(int priority) {
      this.priority = priority;
      return this;
    }

    /** How long a membership change must be quiet before anything moves (5 s). */
    public Builder delay(Duration delay) {
      this.delay = delay;
      return this;
    }

    /** How long a term lasts at least before a member of higher priority is handed it (15 s). */
    public Builder minTenure(Duration minTenure) {
      this.minTenure = minTenure;
      return this;
    }

    /**
     * The options.
     *
     * @throws InvalidArgumentException naming the setting, the value and what is accepted
     */
    public GroupOptions build() {
      return new GroupOptions(name, candidateId, priority, delay, minTenure);
    }
  }
}
