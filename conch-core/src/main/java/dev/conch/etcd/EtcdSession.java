package dev.conch.etcd;

import static dev.conch.etcd.EtcdCalls.await;

import dev.conch.Durations;
import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.EtcdUnavailableException;
import dev.conch.FencedElection;
import dev.conch.Holder;
import dev.conch.InvalidArgumentException;
import dev.conch.LossReason;
import dev.conch.Ticker;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.common.exception.EtcdException;
import io.etcd.jetcd.lease.LeaseGrantResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client process's presence in etcd: one lease, shared by every office it campaigns in, kept
 * alive by a loop of its own on a monotonic clock.
 *
 * <p>The local deadline D of the lease is the send time of the last acknowledged renewal plus the
 * TTL etcd granted: etcd cannot expire the lease before D, so leadership believed before D (minus
 * each election's loss lead) is safe. jetcd's own keep-alive is not used: it measures on the wall
 * clock and reports a loss only after the server has acted.
 */
public final class EtcdSession implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(EtcdSession.class);

  private final Client client;
  private final SessionOptions options;
  private final Ticker ticker;
  private final Object monitor = new Object();
  private final List<Runnable> watchers = new CopyOnWriteArrayList<>();
  private final List<Election> elections = new CopyOnWriteArrayList<>();
  private final AtomicLong renewalFailures = new AtomicLong();
  private final AtomicLong wakeups = new AtomicLong();
  private final Thread keeper;
  private final ConnectBackoff connectBackoff;

  // Guarded by monitor.
  private final List<PendingAction> pending = new ArrayList<>();
  private Lease lease;
  private boolean wanted;
  private boolean closed;
  private String lastError = "no attempt yet";

  private EtcdSession(Client client, SessionOptions options) {
    this.client = client;
    this.options = options;
    this.ticker = options.ticker();
    this.connectBackoff = new ConnectBackoff(client);
    this.keeper = new Thread(this::keepAlive, "conch-session");
    this.keeper.setDaemon(true);
    this.keeper.start();
  }

  /**
   * Opens a session on {@code client}. Nothing is asked of etcd until an election campaigns: an
   * unreachable etcd is not an error here.
   */
  public static EtcdSession open(Client client, SessionOptions options) {
    return new EtcdSession(client, options);
  }

  /** The options of this session. */
  public SessionOptions options() {
    return options;
  }

  /** The jetcd client this session uses (not closed by {@link #close()}). */
  public Client client() {
    return client;
  }

  /**
   * A new candidate for {@code electionOptions.office()} on this session's lease; call {@link
   * Election#start()} to join.
   *
   * @throws InvalidArgumentException when the stop timeout and safety margin cannot fit between two
   *     renewals and the lease deadline
   */
  public Election election(ElectionOptions electionOptions) {
    Duration room = options.ttl().minus(options.renewInterval());
    if (electionOptions.lossLead().compareTo(room) >= 0) {
      throw new InvalidArgumentException(
          "stop-timeout",
          Durations.format(electionOptions.stopTimeout()),
          "stop timeout plus safety margin ("
              + Durations.format(electionOptions.lossLead())
              + ") must be shorter than ttl minus renew interval ("
              + Durations.format(options.ttl())
              + " - "
              + Durations.format(options.renewInterval())
              + " = "
              + Durations.format(room)
              + "); raise the ttl or shorten the stop timeout");
    }
    Election election =
        new FencedElection(
            new EtcdLock(this, electionOptions.office()), electionOptions, ticker, options.clock());
    elections.add(election);
    return election;
  }

  /**
   * Who leads {@code office} now, read from etcd without a lease; empty when vacant.
   *
   * @throws EtcdUnavailableException when etcd does not answer in time
   */
  public Optional<Holder> leader(String office) {
    return new EtcdLock(this, office).leader();
  }

  /** The current lease id, or 0 when there is none. */
  public long leaseId() {
    synchronized (monitor) {
      return lease == null ? 0 : lease.id;
    }
  }

  /** Whether the session has a lease whose deadline has not passed. */
  public boolean isAlive() {
    synchronized (monitor) {
      return lease != null && lease.isAlive(ticker.nanoTime());
    }
  }

  /**
   * How many times a campaign of this session was woken by the deletion of the key just ahead of
   * it. A change of leader wakes exactly one waiting candidate (no herd).
   */
  public long wakeups() {
    return wakeups.get();
  }

  void countWakeup() {
    wakeups.incrementAndGet();
  }

  /** How many renewals failed since the session opened. */
  public long renewalFailures() {
    return renewalFailures.get();
  }

  /** Closes every election of this session (they resign), then revokes the lease. */
  @Override
  public void close() {
    for (Election election : elections) {
      election.close();
    }
    Lease last;
    synchronized (monitor) {
      if (closed) {
        return;
      }
      closed = true;
      last = lease;
      monitor.notifyAll();
    }
    try {
      keeper.join(options.timeout().toMillis() + 1000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (last != null && last.gone == null) {
      try {
        EtcdCalls.awaitUninterruptibly(
            client.getLeaseClient().revoke(last.id), options.timeout(), "revoking the lease");
      } catch (EtcdUnavailableException e) {
        log.warn(
            "could not revoke lease {} on close; it expires after its TTL: {}",
            Long.toHexString(last.id),
            e.getMessage());
      }
    }
  }

  Duration timeout() {
    return options.timeout();
  }

  Ticker ticker() {
    return ticker;
  }

  /** Runs {@code watcher} whenever a lease is renewed or lost; returns how to stop. */
  Runnable watch(Runnable watcher) {
    watchers.add(watcher);
    return () -> watchers.remove(watcher);
  }

  /** The current lease, granting one if there is none; waits at most the call timeout. */
  Lease lease() throws InterruptedException {
    long deadline = ticker.nanoTime() + options.timeout().toNanos();
    synchronized (monitor) {
      wanted = true;
      monitor.notifyAll();
      while (lease == null || lease.gone != null) {
        if (closed) {
          throw new EtcdUnavailableException("session is closed", null);
        }
        long left = deadline - ticker.nanoTime();
        if (left <= 0) {
          throw new EtcdUnavailableException(
              "could not get a lease from etcd within "
                  + Durations.format(options.timeout())
                  + ": "
                  + lastError,
              null);
        }
        TimeUnit.NANOSECONDS.timedWait(monitor, Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
      }
      return lease;
    }
  }

  /**
   * Runs {@code call} now and, if it fails, again on each tick of the keep-alive loop until it
   * succeeds or etcd says the thing is gone: how a resign or revoke that failed is not forgotten.
   */
  void ensure(String what, Supplier<CompletableFuture<?>> call) {
    PendingAction action = new PendingAction(what, call);
    if (!action.attempt(options.timeout())) {
      synchronized (monitor) {
        pending.add(action);
      }
    }
  }

  private void keepAlive() {
    long lastAckSend = 0;
    boolean failing = false;
    Duration retry =
        options.renewInterval().dividedBy(2).compareTo(Duration.ofMillis(500)) < 0
            ? options.renewInterval().dividedBy(2)
            : Duration.ofMillis(500);
    long nextAttempt = ticker.nanoTime();
    while (true) {
      Lease current;
      synchronized (monitor) {
        long wait = nextAttempt - ticker.nanoTime();
        if (!closed && (wait > 0 || !wanted)) {
          try {
            TimeUnit.NANOSECONDS.timedWait(
                monitor, wanted ? wait : TimeUnit.MILLISECONDS.toNanos(500));
          } catch (InterruptedException e) {
            return;
          }
          continue;
        }
        if (closed) {
          return;
        }
        current = lease;
      }
      if (current != null && current.gone != null) {
        retire(current);
        continue;
      }
      long sendAt = ticker.nanoTime();
      try {
        if (current == null) {
          long ttl = options.ttl().toSeconds();
          // Bounded by the renew interval too: a grant that still waits for an etcd that was away
          // would hold up the one that succeeds once it is back (an abandoned grant holds no keys
          // and simply expires).
          Duration grantTimeout =
              options.timeout().compareTo(options.renewInterval()) < 0
                  ? options.timeout()
                  : options.renewInterval();
          LeaseGrantResponse granted =
              await(client.getLeaseClient().grant(ttl), grantTimeout, "lease grant");
          long id = granted.getID();
          synchronized (monitor) {
            lease = new Lease(id, sendAt + TimeUnit.SECONDS.toNanos(granted.getTTL()));
            monitor.notifyAll();
          }
          log.info(
              "lease {} granted (ttl {})", Long.toHexString(id), Durations.format(options.ttl()));
        } else {
          long left = current.validUntil - sendAt;
          Duration timeout =
              Duration.ofNanos(Math.max(1, Math.min(left, options.timeout().toNanos())));
          long ttl =
              await(client.getLeaseClient().keepAliveOnce(current.id), timeout, "lease renewal")
                  .getTTL();
          current.validUntil = sendAt + TimeUnit.SECONDS.toNanos(ttl);
        }
        lastAckSend = sendAt;
        failing = false;
        nextAttempt = lastAckSend + options.renewInterval().toNanos();
      } catch (EtcdUnavailableException e) {
        lastError = EtcdCalls.describe(e);
        connectBackoff.reset();
        if (current == null) {
          nextAttempt = ticker.nanoTime() + retry.toNanos();
        } else if (isNotFound(e)) {
          current.gone = LossReason.LEASE_EXPIRED;
          log.warn("lease {} is gone in etcd", Long.toHexString(current.id));
        } else {
          renewalFailures.incrementAndGet();
          if (!failing) {
            log.warn(
                "lease {} renewal failed, retrying until its deadline: {}",
                Long.toHexString(current.id),
                lastError);
          }
          failing = true;
          nextAttempt = ticker.nanoTime() + retry.toNanos();
          if (ticker.nanoTime() - current.validUntil >= 0) {
            current.gone = LossReason.RENEWAL_FAILED;
            log.warn("lease {} passed its deadline without renewal", Long.toHexString(current.id));
          }
        }
      } catch (InterruptedException e) {
        return;
      }
      watchers.forEach(Runnable::run);
      retryPending();
    }
  }

  /** Forgets a lost lease and makes sure etcd forgets it too, so that its keys go at once. */
  private void retire(Lease gone) {
    synchronized (monitor) {
      if (lease == gone) {
        lease = null;
      }
      // Tried on this tick without waiting: a new lease must not wait for an etcd that is away.
      pending.add(
          new PendingAction(
              "revoking lease " + Long.toHexString(gone.id),
              () -> client.getLeaseClient().revoke(gone.id)));
    }
    watchers.forEach(Runnable::run);
  }

  /**
   * Starts every pending action that is not already under way, without waiting for any: the
   * keep-alive loop must go on renewing and granting while etcd is away.
   */
  private void retryPending() {
    List<PendingAction> due;
    synchronized (monitor) {
      due = List.copyOf(pending);
    }
    for (PendingAction action : due) {
      action.launch(
          options.timeout(),
          () -> {
            synchronized (monitor) {
              pending.remove(action);
            }
          });
    }
  }

  static boolean isNotFound(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof EtcdException etcd && etcd.getErrorCode() == ErrorCode.NOT_FOUND) {
        return true;
      }
    }
    return false;
  }

  /** A lease of this session: valid until {@code validUntil} unless {@code gone} says why not. */
  static final class Lease {
    final long id;
    volatile long validUntil;
    volatile LossReason gone;

    Lease(long id, long validUntil) {
      this.id = id;
      this.validUntil = validUntil;
    }

    /** Whether etcd cannot have expired it by {@code now} (a {@link Ticker} time). */
    boolean isAlive(long now) {
      return gone == null && now - validUntil < 0;
    }
  }
}
