package dev.conch;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * One setting of conch: its canonical kebab-case name, its default, what it accepts and the check
 * of a single value. Every setting conch-core checks is a constant here; {@link ElectionOptions},
 * {@code SessionOptions} and the runner's builder take their defaults and checks from it, and a
 * refusal ({@link InvalidArgumentException#setting()}) says which one it was. The CLI and the
 * Spring properties each map a setting to their own spelling ({@code --kill-after}, {@code
 * conch.runner.kill-after}) in one place.
 *
 * <p>A check that involves another setting (the longest retry delay against the first) stays with
 * the options that hold both, and refuses through {@link #invalid(Object, String)}.
 *
 * @param <T> the type of its values
 */
public final class Setting<T> {

  private static final String ENDPOINTS_ACCEPTED =
      "a comma-separated list of http:// or https:// URLs with host and port,"
          + " e.g. http://127.0.0.1:2379";

  // Election: how one candidate takes part in one office (ElectionOptions).

  /** The office: 1 to 128 characters without '/', whitespace or control characters. */
  /** The longest office name accepted, in characters. */
  public static final int MAX_NAME_LENGTH = 128;

  /** The shortest lease TTL etcd honours (it raises lower ones silently). */
  public static final Duration MIN_TTL = Duration.ofSeconds(2);

  public static final Setting<String> OFFICE =
      new Setting<>(
          "office",
          null,
          "an office name is 1 to "
              + Setting.MAX_NAME_LENGTH
              + " characters without '/', whitespace or control characters (e.g. 'billing')",
          Setting::isOfficeName);

  /** The candidate id stored in the holder JSON; none means {@code host:pid}. */
  public static final Setting<String> CANDIDATE_ID =
      new Setting<>("candidate-id", null, "any text, or none for host:pid", id -> true);

  /** How long each acquire or lose hook of an election may run: 30 s. */
  public static final Setting<Duration> HOOK_TIMEOUT = positive("hook-timeout", 30_000);

  /** How long a candidate needs to stop its work on loss: 1 s. */
  public static final Setting<Duration> STOP_TIMEOUT = notNegative("stop-timeout", 1_000);

  /** Kept free before the lease deadline for scheduling delays and clock drift: 500 ms. */
  public static final Setting<Duration> SAFETY_MARGIN = notNegative("safety-margin", 500);

  /** How many events may wait for slow listeners before new ones are dropped: 16. */
  public static final Setting<Integer> EVENT_BUFFER =
      new Setting<>("event-buffer", 16, "at least 1", size -> size != null && size >= 1);

  /** The first delay before campaigning again after a failure or a loss: 250 ms. */
  public static final Setting<Duration> RETRY_INITIAL = positive("retry-initial", 250);

  /** The largest delay before campaigning again, at least retry-initial: 2 s. */
  public static final Setting<Duration> RETRY_MAX = positive("retry-max", 2_000);

  /**
   * A candidate's priority, any integer; higher leads first, equal priorities never move: 0. Stored
   * in the holder JSON (only when not 0) and in its group membership.
   */
  public static final Setting<Integer> PRIORITY =
      new Setting<>("priority", 0, "an integer (higher leads first)", p -> p != null);

  // Group: how one member takes part in an OfficeGroup (GroupOptions).

  /** The group's name: the same rules as an office name. */
  public static final Setting<String> GROUP =
      new Setting<>(
          "group",
          null,
          "a group name is 1 to "
              + Setting.MAX_NAME_LENGTH
              + " characters without '/', whitespace or control characters (e.g. 'jobs')",
          Setting::isOfficeName);

  /**
   * How long the group's membership must stay unchanged before an office moves: 5 s, longer than
   * the gap between two instances of a rolling restart, so that a bounce moves nothing twice.
   */
  public static final Setting<Duration> BALANCE_DELAY = notNegative("balance-delay", 5_000);

  /**
   * How long a term lasts at least before it is handed to a member of higher priority: 15 s, so
   * that a preferred member that flaps does not drag the office along on every comeback.
   */
  public static final Setting<Duration> MIN_TENURE = notNegative("min-tenure", 15_000);

  // Session: how a client process holds its one lease (SessionOptions, EtcdClients).

  /** The key prefix of elections: {@code /conch/v1/elect/}. */
  public static final Setting<String> PREFIX =
      new Setting<>(
          "prefix",
          "/conch/v1/elect/",
          "a key prefix that starts and ends with '/' (e.g. /conch/v1/elect/)",
          prefix ->
              prefix != null
                  && prefix.startsWith("/")
                  && prefix.endsWith("/")
                  && !prefix.isBlank());

  /** The lease TTL: whole seconds, at least 2 s (etcd's floor); 10 s. */
  public static final Setting<Duration> TTL =
      new Setting<>(
          "ttl",
          Duration.ofSeconds(10),
          "whole seconds, at least 2s",
          ttl -> ttl != null && ttl.compareTo(Setting.MIN_TTL) >= 0 && ttl.getNano() == 0);

  /** The longest interval between lease renewals, shorter than the TTL; none means TTL/3. */
  public static final Setting<Duration> RENEW_INTERVAL =
      new Setting<>(
          "renew-interval", null, "a positive duration shorter than the ttl", Setting::isPositive);

  /** The most terms each office's history keeps in etcd. */
  public static final int MAX_HISTORY_TERMS = 1000;

  /** How many terms each office's history keeps in etcd: 100; 0 writes none. */
  public static final Setting<Integer> HISTORY_TERMS =
      new Setting<>(
          "history-terms",
          100,
          "0 (no history) to " + MAX_HISTORY_TERMS,
          n -> n != null && n >= 0 && n <= MAX_HISTORY_TERMS);

  /** The most keys a session puts on one lease ({@code max-keys-per-lease}). */
  public static final int MAX_KEYS_PER_LEASE = 1_000_000;

  /**
   * How many offices' keys one lease carries at most: 1 000, as the Kubernetes API server caps its
   * own leases; a session with more offices takes another lease.
   */
  public static final Setting<Integer> KEYS_PER_LEASE =
      new Setting<>(
          "max-keys-per-lease",
          1000,
          "a whole number from 1 to " + MAX_KEYS_PER_LEASE,
          n -> n != null && n >= 1 && n <= MAX_KEYS_PER_LEASE);

  /** The longest any single etcd call may take: 5 s. */
  public static final Setting<Duration> TIMEOUT = positive("timeout", 5_000);

  /** The etcd endpoints, comma-separated URLs. */
  public static final Setting<String> ENDPOINTS =
      new Setting<>("endpoints", null, ENDPOINTS_ACCEPTED, e -> e != null && !e.isBlank());

  /** One of the etcd endpoints: an http:// or https:// URL with host and port. */
  public static final Setting<String> ENDPOINT =
      new Setting<>("endpoint", null, ENDPOINTS_ACCEPTED, e -> e != null);

  // Runner: a command run while leading (ExternalCommandRunner.Builder).

  /** The command and its arguments, exec'd without a shell. */
  public static final Setting<List<String>> COMMAND =
      new Setting<>(
          "command",
          null,
          "a program and its arguments, run without a shell (e.g. [\"sleep\", \"60\"])",
          argv ->
              argv != null
                  && !argv.isEmpty()
                  && argv.stream().allMatch(Objects::nonNull)
                  && !argv.get(0).isBlank());

  /** Whether to campaign and run the command again after it ends or leadership is lost. */
  public static final Setting<Boolean> RESTART =
      new Setting<>("restart", false, "true or false", restart -> restart != null);

  /** How long the command's group may take to exit after SIGTERM before SIGKILL: 5 s. */
  public static final Setting<Duration> KILL_AFTER = positive("kill-after", 5_000);

  /** A shell command run on winning, before the command; none by default. */
  public static final Setting<String> ON_ACQUIRE = hook("on-acquire");

  /** A shell command run after the command stopped; none by default. */
  public static final Setting<String> ON_LOSE = hook("on-lose");

  /** How long each of the runner's hooks may run before its group is stopped: 30 s. */
  public static final Setting<Duration> RUNNER_HOOK_TIMEOUT = positive("hook-timeout", 30_000);

  /** How long to campaign before the command first starts: 0 not at all; none means forever. */
  public static final Setting<Duration> WAIT =
      new Setting<>(
          "wait",
          null,
          "0 (do not wait), a positive duration, or none",
          wait -> wait == null || !wait.isNegative());

  /** Variables added to the parent's environment for the command and hooks. */
  public static final Setting<Map<String, String>> ENVIRONMENT =
      new Setting<>(
          "environment", Map.of(), "NAME=value without '=' in the name", env -> env != null);

  /** The etcd election name of the office, for {@code ETCD_LOCK_KEY}; none by default. */
  public static final Setting<String> ELECTION_NAME =
      new Setting<>(
          "election-name",
          null,
          "an etcd election name such as /conch/v1/elect/billing",
          name -> name == null || (name.startsWith("/") && !name.endsWith("/")));

  /** Adjusts the runner's election options; they must stay options of the runner's office. */
  public static final Setting<UnaryOperator<ElectionOptions>> ELECTION_OPTIONS =
      new Setting<>(
          "election-options",
          UnaryOperator.identity(),
          "options for the runner's office",
          customizer -> customizer != null);

  /** The first back-off delay before campaigning again: 1 s. */
  public static final Setting<Duration> BACKOFF_INITIAL = positive("backoff-initial", 1_000);

  /** The longest back-off delay, at least backoff-initial: 30 s. */
  public static final Setting<Duration> BACKOFF_MAX = positive("backoff-max", 30_000);

  /** The life of a command after which the back-off starts again from its first delay: 60 s. */
  public static final Setting<Duration> BACKOFF_RESET = positive("backoff-reset", 60_000);

  private final String name;
  private final @Nullable T defaultValue;
  private final String accepted;
  private final Predicate<? super T> valid;

  private Setting(
      String name, @Nullable T defaultValue, String accepted, Predicate<? super T> valid) {
    this.name = name;
    this.defaultValue = defaultValue;
    this.accepted = accepted;
    this.valid = valid;
  }

  /** The canonical name, kebab-case: {@code kill-after}. */
  public String name() {
    return name;
  }

  /** The default; {@code null} where none is given (see the constant's description). */
  public @Nullable T defaultValue() {
    return defaultValue;
  }

  /** What a value must be, as the refusal says it. */
  public String accepted() {
    return accepted;
  }

  /** Whether this setting accepts {@code value} on its own. */
  public boolean accepts(@Nullable T value) {
    return valid.test(value);
  }

  /**
   * Returns {@code value} when this setting accepts it on its own.
   *
   * @throws InvalidArgumentException naming this setting, the value and {@link #accepted()}
   */
  public @Nullable T require(@Nullable T value) {
    if (!accepts(value)) {
      throw invalid(value, accepted);
    }
    return value;
  }

  /**
   * The refusal of {@code value} for this setting (a duration shown as {@link Durations#format}
   * writes it), saying what would be {@code accepted}.
   */
  public InvalidArgumentException invalid(@Nullable Object value, String accepted) {
    return new InvalidArgumentException(
        this, value instanceof Duration duration ? Durations.format(duration) : value, accepted);
  }

  @Override
  public String toString() {
    return name;
  }

  private static Setting<Duration> positive(String name, long defaultMillis) {
    return new Setting<>(
        name, Duration.ofMillis(defaultMillis), "a positive duration", Setting::isPositive);
  }

  private static Setting<Duration> notNegative(String name, long defaultMillis) {
    return new Setting<>(
        name,
        Duration.ofMillis(defaultMillis),
        "a duration of 0 or more",
        value -> value != null && !value.isNegative());
  }

  private static Setting<String> hook(String name) {
    return new Setting<>(
        name, null, "a shell command, or none", hook -> hook == null || !hook.isBlank());
  }

  private static boolean isPositive(@Nullable Duration value) {
    return value != null && !value.isNegative() && !value.isZero();
  }

  private static boolean isOfficeName(@Nullable String office) {
    if (office == null || office.isEmpty() || office.length() > Setting.MAX_NAME_LENGTH) {
      return false;
    }
    for (int i = 0; i < office.length(); i++) {
      char c = office.charAt(i);
      if (c == '/' || Character.isWhitespace(c) || Character.isISOControl(c)) {
        return false;
      }
    }
    return true;
  }
}
