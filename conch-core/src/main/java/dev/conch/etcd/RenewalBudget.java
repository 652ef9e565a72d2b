package dev.conch.etcd;

import dev.conch.Durations;
import dev.conch.InvalidArgumentException;
import dev.conch.Setting;
import java.time.Duration;

/**
 * How often the lease is renewed and how long one attempt may take, derived from what a leader must
 * keep free rather than from a fixed TTL/3.
 *
 * <p>After a renewal sent at {@code s} is acknowledged, the lease deadline is {@code D = s + ttl}
 * and a leader must start stopping at {@code D - lossLead}. The window {@code W = ttl - lossLead}
 * is therefore all the time a renewal has between two acknowledged ones. The next renewal goes out
 * a quarter of the way into it ({@link #interval()} = {@code min(ceiling, W/4)}), and each attempt
 * gives up after {@code W/8} ({@link #attemptTimeout()}, at most the call timeout) and is retried
 * at once (with round-robin over the endpoints the retry reaches another member); an attempt that
 * failed fast instead (no connection) is retried {@link #afterFastFailure()} later. So an etcd that
 * stalls for less than {@code 3W/4} (3 s with the CLI's TTL 10 s and kill-after 5 s) costs no
 * leadership: the attempt under way when it recovers is answered in time.
 *
 * @param interval the time from one acknowledged renewal to the next attempt
 * @param attemptTimeout how long one renewal attempt may take before the next one starts
 */
public record RenewalBudget(Duration interval, Duration attemptTimeout) {

  /** The smallest window accepted: four renewal attempts of 50 ms must fit in it. */
  public static final Duration MIN_WINDOW = Duration.ofMillis(400);

  /**
   * The budget of a lease with {@code ttl} whose leaders drop leadership {@code stopTimeout +
   * safetyMargin} (the loss lead) before its deadline.
   *
   * @param ceiling the longest interval wanted while all is well (the configured renew interval)
   * @param callTimeout the longest any etcd call may take
   * @throws InvalidArgumentException ({@code stop-timeout}) when the loss lead leaves less than
   *     {@link #MIN_WINDOW} of the TTL to renew in
   */
  public static RenewalBudget of(
      Duration ttl,
      Duration stopTimeout,
      Duration safetyMargin,
      Duration ceiling,
      Duration callTimeout) {
    Duration lossLead = stopTimeout.plus(safetyMargin);
    Duration window = ttl.minus(lossLead);
    if (window.compareTo(MIN_WINDOW) < 0) {
      throw Setting.STOP_TIMEOUT.invalid(
          stopTimeout,
          "stop timeout plus safety margin ("
              + Durations.format(lossLead)
              + ") must leave at least "
              + Durations.format(MIN_WINDOW)
              + " of the ttl ("
              + Durations.format(ttl)
              + ") to renew the lease in, so that a renewal can fail and be retried before"
              + " leadership must be dropped; raise the ttl or shorten the stop timeout");
    }
    Duration interval = min(ceiling, window.dividedBy(4));
    Duration attempt = min(callTimeout, window.dividedBy(8));
    return new RenewalBudget(interval, attempt);
  }

  /**
   * How long after a renewal attempt that failed fast (no connection; a member without a raft
   * leader waits at most 50 ms) the next one goes out: a quarter attempt, at least 10 ms. Only
   * after an attempt that timed out does the next go out at once.
   */
  public Duration afterFastFailure() {
    Duration quarter = attemptTimeout.dividedBy(4);
    Duration floor = Duration.ofMillis(10);
    return quarter.compareTo(floor) >= 0 ? quarter : floor;
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
