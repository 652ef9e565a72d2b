package dev.conch.etcd;

import static dev.conch.etcd.EtcdCalls.text;

import dev.conch.FencedLock.Grant;
import dev.conch.Holder;
import dev.conch.Leadership;
import dev.conch.LossReason;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import java.time.Instant;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leadership held through a key: ends when the key is deleted or the lease is gone. The key is
 * watched for a deletion by someone else (at once), and confirmed by the lease keeper in every
 * renewal round (at the latest one renew interval after a deletion, even when no watch works).
 * There is exactly one watcher at a time: a watch that fails is not re-created from its own
 * callback but by the next round that confirms the key, from the revision that round read.
 */
final class EtcdGrant implements Grant, LeaseKeeper.HeldKey {

  private static final Logger log = LoggerFactory.getLogger(EtcdOffice.class);

  private final EtcdSession session;
  private final String office;
  private final ByteSequence key;
  private final Holder holder;
  private final LeaseKeeper.Lease lease;
  private final Runnable changed;
  private final Runnable unhold;
  private final Runnable unlisten;
  private final long confirmRevision;
  private final Runnable left;

  // Guarded by watching; never held while calling into jetcd (see watchFrom).
  private final Object watching = new Object();
  private @Nullable Watching current;

  // How the term ended and where its end trims the history (TermHistory), for the release.
  private volatile @Nullable Ending ending;
  private volatile @Nullable ByteSequence trimThrough;

  private volatile long confirmedUntil;
  private volatile boolean keyDeleted;
  private volatile boolean stopped;

  EtcdGrant(
      EtcdSession session,
      String office,
      ByteSequence key,
      Holder holder,
      LeaseKeeper.Lease lease,
      Runnable changed,
      long confirmSentAt,
      long confirmRevision,
      Runnable left) {
    this.session = session;
    this.office = office;
    this.key = key;
    this.holder = holder;
    this.lease = lease;
    this.changed = changed;
    this.confirmedUntil = confirmSentAt + lease.ttlNanos;
    this.confirmRevision = confirmRevision;
    this.unhold = session.keeper().hold(this);
    this.unlisten = session.listen(changed);
    this.left = left;
  }

  @Override
  public long rev() {
    return holder.rev();
  }

  /**
   * Starts watching the key from the revision that confirmed the win. Called once the term has been
   * handed on, so that setting up the watch does not delay it: a deletion meanwhile is still seen,
   * since the watch starts from that revision.
   */
  void watch() {
    watchFrom(confirmRevision + 1);
  }

  /**
   * Replaces the watcher by one from {@code revision}; callbacks of the old one are ignored.
   *
   * <p>No conch monitor is held while jetcd is called: jetcd 0.8.7 runs a watcher's {@code onError}
   * and {@code onCompleted} while holding the watch client's one lock, which {@code watch()} and
   * {@code close()} take too. A monitor held across {@code watch()} that a callback also wanted
   * stopped the keeper and a jetcd thread for good. The callbacks take no lock at all.
   */
  private void watchFrom(long revision) {
    Watching next = new Watching();
    Watching old;
    synchronized (watching) {
      if (stopped) {
        return;
      }
      old = current;
      current = next;
    }
    if (old != null) {
      old.close();
    }
    Watch.Watcher created;
    try {
      created =
          session
              .client()
              .getWatchClient()
              .watch(
                  key,
                  WatchOption.builder()
                      .withRevision(revision)
                      .withNoPut(true)
                      .withRequireLeader(true)
                      .build(),
                  Watch.listener(
                      response -> {
                        if (response.getEvents().stream()
                            .anyMatch(e -> e.getEventType() == WatchEvent.EventType.DELETE)) {
                          markDeleted();
                        }
                      },
                      error -> next.broken = true,
                      () -> next.broken = true));
    } catch (RuntimeException e) {
      // A closed client: the keeper's rounds still confirm the key, and try again.
      next.broken = true;
      log.debug("office '{}': could not watch own key: {}", office, e.toString());
      return;
    }
    if (!next.attach(created)) {
      created.close();
    }
  }

  /** Takes the current watch away; its callbacks are ignored from now on. */
  private @Nullable Watching detach() {
    synchronized (watching) {
      Watching old = current;
      current = null;
      return old;
    }
  }

  @Override
  public long leaseId() {
    return lease.id;
  }

  @Override
  public ByteSequence key() {
    return key;
  }

  @Override
  public void confirmed(long validUntil, long revision) {
    confirmedUntil = validUntil;
    boolean rewatch;
    synchronized (watching) {
      rewatch = current == null || current.broken;
    }
    if (rewatch && !stopped) {
      session.countRewatch();
      watchFrom(revision + 1);
    }
  }

  @Override
  public void missing() {
    markDeleted();
  }

  private void markDeleted() {
    if (!stopped && !keyDeleted) {
      keyDeleted = true;
      log.warn("office '{}': own key {} was deleted", office, text(key));
      changed.run();
    }
  }

  /**
   * Stops watching and confirming the key; idempotent (a hand-over that fails releases after). The
   * key is still this term's until {@link #released}: a ghost-key guard must not delete it while
   * the release or hand-over that deletes it is on its way ({@link GhostKeys}).
   */
  void stop() {
    synchronized (watching) {
      if (stopped) {
        return;
      }
      stopped = true;
    }
    unhold.run();
    unlisten.run();
    Watching last = detach();
    if (last != null) {
      last.close();
    }
  }

  /**
   * The release or hand-over that deletes the key was answered (whatever the answer: a release that
   * failed is retried by the session, and a guard's delete of the key is the same delete): the
   * session no longer uses the key. Idempotent.
   */
  void released() {
    left.run();
  }

  @Override
  public Leadership leadership() {
    return new Leadership(office, holder.rev(), lease.id, holder);
  }

  @Override
  public long validUntil() {
    long confirmed = confirmedUntil;
    long renewed = lease.validUntil;
    return confirmed - renewed < 0 ? confirmed : renewed;
  }

  @Override
  public void ending(LossReason reason, @Nullable String detail) {
    String what =
        detail == null && reason == LossReason.RENEWAL_FAILED
            ? "renewals failed until the loss lead; last error: " + session.keeper().lastError()
            : detail;
    ending = new Ending(session.options().clock().instant(), reason, what);
  }

  /** How the term ended, as the history records it; {@code null} until {@link #ending} said. */
  @Nullable Ending ending() {
    return ending;
  }

  /** The history's records up to this key go with this term's end. */
  void trimThrough(ByteSequence key) {
    trimThrough = key;
  }

  @Nullable ByteSequence trimThrough() {
    return trimThrough;
  }

  /** How a term ended: when, why, and in words. */
  record Ending(Instant at, LossReason reason, @Nullable String detail) {}

  @Override
  public Optional<LossReason> ended() {
    if (keyDeleted) {
      return Optional.of(LossReason.KEY_DELETED);
    }
    return Optional.ofNullable(lease.gone);
  }

  /**
   * One watch of the key. Its callbacks only set {@link #broken}: they run under jetcd's lock. A
   * watch replaced before jetcd returned its watcher is closed by whoever comes second.
   */
  private static final class Watching {
    volatile boolean broken;
    private Watch.@Nullable Watcher watcher;
    private boolean closed;

    /** Keeps {@code created}, or returns false when this watch was closed meanwhile. */
    synchronized boolean attach(Watch.Watcher created) {
      if (closed) {
        return false;
      }
      watcher = created;
      return true;
    }

    void close() {
      Watch.Watcher last;
      synchronized (this) {
        closed = true;
        last = watcher;
        watcher = null;
      }
      if (last != null) {
        last.close(); // outside the lock: jetcd calls onCompleted from close()
      }
    }
  }
}
