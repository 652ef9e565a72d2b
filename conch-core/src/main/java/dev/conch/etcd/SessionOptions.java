package dev.conch.etcd;

import dev.conch.Durations;
import dev.conch.Setting;
import dev.conch.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * How a client process holds its one lease in etcd.
 *
 * @param prefix the key prefix of elections; an office's election name is prefix + office
 * @param ttl the lease TTL: whole seconds, at least 2 s
 * @param renewInterval the longest interval between renewals; the lease keeper renews more often
 *     when the loss lead of an election needs it ({@link RenewalBudget})
 * @param timeout the longest any single etcd call may take
 * @param ticker the monotonic clock of every deadline
 * @param clock the wall clock of {@code since} in the holder JSON
 * @param historyTerms how many terms each office's history keeps ({@link TermHistory}); 0: none is
 *     written
 * @param maxKeysPerLease how many offices' keys one lease carries at most; a session with more
 *     offices spreads them over several leases, each renewed on its own ({@link EtcdSession})
 */
public record SessionOptions(
    String prefix,
    Duration ttl,
    Duration renewInterval,
    Duration timeout,
    Ticker ticker,
    Clock clock,
    int historyTerms,
    int maxKeysPerLease) {

  /** Default {@link #prefix()}, compatible with {@code etcdctl elect /conch/v1/elect/<office>}. */
  // A constant expression, for annotations (the CLI's --prefix); a test holds it to Setting.PREFIX.
  public static final String DEFAULT_PREFIX = "/conch/v1/elect/";

  /** Default {@link #ttl()}: 10 s. */
  public static final Duration DEFAULT_TTL = Objects.requireNonNull(Setting.TTL.defaultValue());

  /** Default {@link #timeout()}: 5 s. */
  public static final Duration DEFAULT_TIMEOUT =
      Objects.requireNonNull(Setting.TIMEOUT.defaultValue());

  /** Checks every value. */
  public SessionOptions {
    Setting.PREFIX.require(prefix);
    Setting.TTL.require(ttl);
    if (!Setting.RENEW_INTERVAL.accepts(renewInterval) || renewInterval.compareTo(ttl) >= 0) {
      throw Setting.RENEW_INTERVAL.invalid(
          renewInterval,
          "a positive duration shorter than the ttl (" + Durations.format(ttl) + ")");
    }
    Setting.TIMEOUT.require(timeout);
    Objects.requireNonNull(ticker, "ticker");
    Objects.requireNonNull(clock, "clock");
    Setting.HISTORY_TERMS.require(historyTerms);
    Setting.KEYS_PER_LEASE.require(maxKeysPerLease);
  }

  /** The defaults: prefix {@value #DEFAULT_PREFIX}, TTL 10 s renewed every TTL/3, timeout 5 s. */
  public static SessionOptions defaults() {
    return new SessionOptions(
        Objects.requireNonNull(Setting.PREFIX.defaultValue()),
        DEFAULT_TTL,
        DEFAULT_TTL.dividedBy(3),
        DEFAULT_TIMEOUT,
        Ticker.SYSTEM,
        Clock.systemUTC(),
        Objects.requireNonNull(Setting.HISTORY_TERMS.defaultValue()),
        Objects.requireNonNull(Setting.KEYS_PER_LEASE.defaultValue()));
  }

  /** With this TTL, renewed every TTL/3. */
  public SessionOptions withTtl(Duration newTtl) {
    Setting.TTL.require(newTtl);
    return new SessionOptions(
        prefix, newTtl, newTtl.dividedBy(3), timeout, ticker, clock, historyTerms, maxKeysPerLease);
  }

  /** With this renew interval. */
  public SessionOptions withRenewInterval(Duration interval) {
    return new SessionOptions(
        prefix, ttl, interval, timeout, ticker, clock, historyTerms, maxKeysPerLease);
  }

  /** With this key prefix. */
  public SessionOptions withPrefix(String newPrefix) {
    return new SessionOptions(
        newPrefix, ttl, renewInterval, timeout, ticker, clock, historyTerms, maxKeysPerLease);
  }

  /** With this call timeout. */
  public SessionOptions withTimeout(Duration newTimeout) {
    return new SessionOptions(
        prefix, ttl, renewInterval, newTimeout, ticker, clock, historyTerms, maxKeysPerLease);
  }

  /** With these clocks. */
  public SessionOptions withClocks(Ticker newTicker, Clock newClock) {
    return new SessionOptions(
        prefix, ttl, renewInterval, timeout, newTicker, newClock, historyTerms, maxKeysPerLease);
  }

  /** Keeping this many terms of each office's history (0: none). */
  public SessionOptions withHistoryTerms(int terms) {
    return new SessionOptions(
        prefix, ttl, renewInterval, timeout, ticker, clock, terms, maxKeysPerLease);
  }

  /** Putting at most this many offices' keys on one lease. */
  public SessionOptions withMaxKeysPerLease(int keys) {
    return new SessionOptions(
        prefix, ttl, renewInterval, timeout, ticker, clock, historyTerms, keys);
  }

  /**
   * The root of every key conch stores besides candidates (group membership, job records), outside
   * every election's prefix (DESIGN.md, "Keys that are not candidates"): the prefix with its last
   * segment {@code elect/} replaced by {@code meta/} ({@code /conch/v1/meta/} by default), or, for
   * a prefix that does not end so, the prefix without its trailing '/' plus {@code .meta/}: a key
   * under {@code <prefix><office>/} would be taken for a candidate.
   */
  public String metaRoot() {
    if (prefix.endsWith("/elect/")) {
      return prefix.substring(0, prefix.length() - "elect/".length()) + "meta/";
    }
    String bare = prefix.endsWith("/") ? prefix.substring(0, prefix.length() - 1) : prefix;
    return bare + ".meta/";
  }

  /** The election name of {@code office}: prefix + office, without a trailing '/'. */
  public String electionName(String office) {
    return prefix + Setting.OFFICE.require(office);
  }
}
