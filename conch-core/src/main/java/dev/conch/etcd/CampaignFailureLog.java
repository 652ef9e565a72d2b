package dev.conch.etcd;

import dev.conch.Ticker;
import java.time.Duration;
import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says once per attempt, for all the offices of a session, that their campaigns failed for want of
 * a lease: every office waits for the session's one lease, so an etcd out of reach (a wrong
 * endpoint) fails them all for the same reason, and a WARN line per office every few seconds would
 * bury everything else. The line names the session's offices, all affected, and the endpoint; the
 * failures within one call timeout of it are said at DEBUG. Once a lease is granted, the next
 * failure is said at once.
 */
final class CampaignFailureLog {

  private static final Logger log = LoggerFactory.getLogger(EtcdSession.class);

  /** The most offices a line names; the others are counted. */
  private static final int NAMED = 20;

  private final Ticker ticker;
  private final long periodNanos;
  private final Supplier<Collection<String>> offices;

  // Guarded by this.
  private boolean said;
  private long saidAt;

  /**
   * @param period the session's attempt: how long a campaign waits for the lease (the call timeout)
   * @param offices the session's offices now
   */
  CampaignFailureLog(Ticker ticker, Duration period, Supplier<Collection<String>> offices) {
    this.ticker = ticker;
    this.periodNanos = period.toNanos();
    this.offices = offices;
  }

  /** {@code lease}, which once granted makes the next failure said at once. */
  <T> CompletableFuture<T> watch(CompletableFuture<T> lease) {
    lease.whenComplete(
        (granted, error) -> {
          if (error == null) {
            synchronized (this) {
              said = false;
            }
          }
        });
    return lease;
  }

  /** Says that {@code office}'s campaign failed because of {@code failure}, the session's. */
  void failed(String office, Throwable failure) {
    String line = line(office);
    if (line == null) {
      log.debug("office {}: campaign failed, will retry: {}", office, failure.getMessage());
    } else {
      log.warn("{}: campaign failed, will retry: {}", line, failure.getMessage());
    }
  }

  /** The offices to name now, or null when a line went out within the period. */
  private @Nullable String line(String office) {
    synchronized (this) {
      long now = ticker.nanoTime();
      if (said && now - saidAt < periodNanos) {
        return null;
      }
      said = true;
      saidAt = now;
    }
    Set<String> affected = new TreeSet<>(offices.get());
    affected.add(office);
    StringBuilder names = new StringBuilder(affected.size() == 1 ? "office " : "offices ");
    int named = 0;
    for (String name : affected) {
      if (named == NAMED) {
        names.append(" and ").append(affected.size() - NAMED).append(" more");
        break;
      }
      names.append(named++ == 0 ? "" : ", ").append(name);
    }
    return names.toString();
  }
}
