package dev.conch.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import java.util.concurrent.CompletableFuture;

/**
 * How a follower learns that the key it waits behind is gone, at the cost of a wait: no thread, no
 * timer and no watch of its own. Two things can tell of the deletion: the session's one watch
 * ({@link DeletionWatch}), from the revision that found the key, and the lease keeper's round,
 * which reads the keys followers wait behind together with the leaders' keys: one request per round
 * for every office of the session, so a watch that resumed silently or stalled delays the successor
 * by one renew interval at most (more than 1 024 followers in a session share the round's reads,
 * each every n-th round: {@link LeaseKeeper#BELT_TRANSACTIONS}), and no follower re-reads on its
 * own. It used to, every 30 renew intervals, as a third belt: 10,000 followers read 10,000 times in
 * a burst every minute, while the two belts it doubled now cover every follower.
 */
final class PredecessorWatch {

  private PredecessorWatch() {}

  /**
   * Completes with true once {@code predecessor} is deleted, with false when the watch cannot tell
   * (a compaction) or the lease changed (the caller reads again), or when the caller completes it;
   * the wait and the keeper's hold end with it.
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
    Runnable unhold = lease.keeper.hold(new Ahead(predecessor, lease.id, deleted));
    Runnable unlisten =
        lease.keeper.listen(
            () -> {
              if (lease.gone != null) {
                deleted.complete(false);
              }
            });
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
