package dev.conch.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * How a follower learns that the key it waits behind is gone, at the cost of a wait and a timer, no
 * thread and no watch of its own. Two things can tell of the deletion: the session's one watch
 * ({@link DeletionWatch}), from the revision that found the key, and the lease keeper's round,
 * which reads the keys followers wait behind together with the leaders' keys: one request per round
 * for every office of the session, so a watch that resumed silently or stalled delays the successor
 * by one renew interval at most (more than 1 024 followers in a session share the round's reads,
 * each every n-th round: {@link LeaseKeeper#BELT_TRANSACTIONS}), and no follower re-reads on its
 * own.
 */
final class PredecessorWatch {

  /** How many renew intervals a follower waits before it reads the candidates again by itself. */
  static final int FOLLOWER_RECHECK = 30;

  private PredecessorWatch() {}

  /**
   * Completes with true once {@code predecessor} is deleted, with false when the watch cannot tell
   * (a compaction), the lease changed, or {@value #FOLLOWER_RECHECK} renew intervals passed (the
   * caller reads again), or when the caller completes it; the watch and the keeper's hold end with
   * it.
   */
  static CompletableFuture<Boolean> deletionOf(
      EtcdSession session, KeyValue predecessor, long fromRevision, LeaseKeeper.Lease lease) {
    CompletableFuture<Boolean> deleted = new CompletableFuture<>();
    Runnable unwatch =
        session
            .deletions()
            .await(
                predecessor.getKey(),
                fromRevision,
                new DeletionWatch.Waiter() {
                  @Override
                  public void deleted() {
                    deleted.complete(true);
                  }

                  @Override
                  public void unknown() {
                    deleted.complete(false);
                  }
                });
    Runnable unhold = session.keeper().hold(new Ahead(predecessor, lease.id, deleted));
    Runnable unlisten =
        session.listen(
            () -> {
              if (lease.gone != null) {
                deleted.complete(false);
              }
            });
    // Only a belt: the watch and the keeper's rounds tell of the deletion, the keeper's listener
    // of a lost lease. Waking every office's follower on a timer would cost requests per office.
    deleted.completeOnTimeout(
        false,
        session.options().renewInterval().multipliedBy(FOLLOWER_RECHECK).toNanos(),
        TimeUnit.NANOSECONDS);
    deleted.whenComplete(
        (seen, error) -> {
          unlisten.run();
          unhold.run();
          unwatch.run();
        });
    return deleted;
  }

  /** The key a follower waits behind, read by the lease keeper in its rounds. */
  private record Ahead(KeyValue predecessor, long leaseId, CompletableFuture<Boolean> deleted)
      implements LeaseKeeper.HeldKey {

    @Override
    public ByteSequence key() {
      return predecessor.getKey();
    }

    @Override
    public long rev() {
      return predecessor.getCreateRevision();
    }

    @Override
    public boolean confirmsTerm() {
      return false; // a missed read only delays this follower's win
    }

    @Override
    public void confirmed(long validUntil, long revision) {
      // still there: keep waiting
    }

    @Override
    public void missing() {
      deleted.complete(true);
    }
  }
}
