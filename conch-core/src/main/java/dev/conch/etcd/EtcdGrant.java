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
import java.util.Optional;
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

  // Guarded by this.
  private Watch.Watcher watcher;
  private int generation;
  private boolean watchBroken;

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
      long confirmRevision) {
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

  /** Replaces the watcher by one from {@code revision}; callbacks of the old one are ignored. */
  private void watchFrom(long revision) {
    Watch.Watcher old;
    synchronized (this) {
      old = detachWatcher();
      if (!stopped) {
        int mine = generation;
        watchBroken = false;
        watcher =
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
                        error -> broken(mine),
                        () -> broken(mine)));
      }
    }
    // Closed outside the lock: jetcd calls the old listener's completion from close().
    if (old != null) {
      old.close();
    }
  }

  private synchronized void broken(int of) {
    if (of == generation) {
      watchBroken = true;
    }
  }

  /** Takes the current watcher away; its callbacks are ignored from now on. */
  private synchronized Watch.Watcher detachWatcher() {
    generation++;
    Watch.Watcher old = watcher;
    watcher = null;
    return old;
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
    synchronized (this) {
      rewatch = watchBroken || watcher == null;
    }
    if (rewatch && !stopped) {
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

  void stop() {
    stopped = true;
    unhold.run();
    unlisten.run();
    Watch.Watcher last = detachWatcher();
    if (last != null) {
      last.close();
    }
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
  public Optional<LossReason> ended() {
    if (keyDeleted) {
      return Optional.of(LossReason.KEY_DELETED);
    }
    return Optional.ofNullable(lease.gone);
  }
}
