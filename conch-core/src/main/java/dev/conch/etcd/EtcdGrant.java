package dev.conch.etcd;

import static dev.conch.etcd.EtcdCalls.text;

import dev.conch.FencedLock.Grant;
import dev.conch.Holder;
import dev.conch.Leadership;
import dev.conch.LossReason;
import io.etcd.jetcd.ByteSequence;
import java.time.Instant;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leadership held through a key: ends when the key is deleted or the lease is gone. The session's
 * watch tells of a deletion by someone else at once ({@link DeletionWatch}), and the lease keeper
 * confirms the key in every renewal round (at the latest one renew interval after a deletion, even
 * when no watch works). When the watch cannot tell (a compaction, a win read before the watch
 * began), the next round that confirms the key waits again from the revision that round read.
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

  // Guarded by watching; never held while calling the watch (see watchFrom).
  private final Object watching = new Object();
  private boolean watched;
  private Runnable unwatch = () -> {};

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
    this.unhold = lease.keeper.hold(this);
    this.unlisten = lease.keeper.listen(changed);
    this.left = left;
  }

  @Override
  public long rev() {
    return holder.rev();
  }

  /**
   * Starts waiting for the key's deletion from the revision that confirmed the win. Called once the
   * term has been handed on, so that it does not delay it: a deletion meanwhile is still seen,
   * since the wait starts from that revision.
   */
  void watch() {
    watchFrom(confirmRevision + 1);
  }

  /**
   * Waits for the key's deletion on the session's watch ({@link DeletionWatch}) from {@code
   * revision}, unless a wait is on. No monitor is held while the watch is called: its callbacks may
   * run under jetcd's client-wide watch lock.
   */
  private void watchFrom(long revision) {
    synchronized (watching) {
      if (stopped || watched) {
        return;
      }
      watched = true;
    }
    Runnable stop =
        session
            .deletions()
            .await(
                key,
                revision,
                new DeletionWatch.Waiter() {
                  @Override
                  public void deleted() {
                    markDeleted();
                  }

                  @Override
                  public void unknown() {
                    // The next round that confirms the key waits again, from its revision.
                    synchronized (watching) {
                      watched = false;
                    }
                  }
                });
    boolean late;
    synchronized (watching) {
      late = stopped;
      unwatch = stop;
    }
    if (late) {
      stop.run();
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
    watchFrom(revision + 1); // only when the watch could not tell of a deletion since the win
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
    Runnable stop;
    synchronized (watching) {
      stop = unwatch;
    }
    stop.run();
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
            ? "renewals failed until the loss lead; last error: " + lease.keeper.lastError()
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
}
