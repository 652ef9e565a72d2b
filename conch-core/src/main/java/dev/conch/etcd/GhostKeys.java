package dev.conch.etcd;

import static dev.conch.etcd.EtcdCalls.text;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Candidate keys of a session that may appear after their candidate left: a campaign put that timed
 * out can still be applied by etcd later (held up on a slow member or link; the server starts its
 * own deadline when the request arrives). A withdrawal sent meanwhile finds nothing to delete, and
 * the key that lands afterwards, on the live shared lease, would lead the office against everyone
 * until the session closed (etcd#21128).
 *
 * <p>Such a key is read in every round of the lease keeper, in the one confirming request, for the
 * rest of its lease's life: whenever it is found while no campaign or term of this session uses it,
 * it is deleted, fenced by the create revision read. A later campaign on the same key needs no
 * help: its put deletes an old key first, and a late put cannot land over a key that exists.
 */
final class GhostKeys {

  private static final Logger log = LoggerFactory.getLogger(EtcdOffice.class);

  private final EtcdSession session;
  private final Map<ByteSequence, Integer> users = new ConcurrentHashMap<>();
  private final Map<ByteSequence, Guard> guards = new ConcurrentHashMap<>();

  GhostKeys(EtcdSession session) {
    this.session = session;
  }

  /**
   * A campaign (and then its term) uses {@code key} from now on; the returned action, idempotent,
   * says it no longer does. A term uses its key until the release or hand-over that deletes it was
   * answered, not only until the term stopped: a hand-over deletes the key together with the keys
   * between, and a guard that deleted it first would hand the office to the next in line instead.
   */
  Runnable use(ByteSequence key) {
    users.merge(key, 1, Integer::sum);
    AtomicBoolean left = new AtomicBoolean();
    return () -> {
      if (left.compareAndSet(false, true)) {
        users.computeIfPresent(key, (k, count) -> count == 1 ? null : count - 1);
      }
    };
  }

  /** A put of {@code key} on {@code lease} may still land: read it in every round of the lease. */
  void guard(ByteSequence key, LeaseKeeper.Lease lease) {
    guards.compute(
        key,
        (k, existing) -> {
          if (existing != null && existing.lease == lease) {
            return existing;
          }
          if (existing != null) {
            existing.stop();
          }
          Guard guard = new Guard(key, lease);
          guard.start();
          return guard;
        });
  }

  private boolean inUse(ByteSequence key) {
    return users.containsKey(key);
  }

  /** One key read in the rounds of its lease, until the lease is gone. */
  private final class Guard implements LeaseKeeper.HeldKey {
    private final ByteSequence key;
    private final LeaseKeeper.Lease lease;
    private final AtomicLong deleting = new AtomicLong();
    private volatile Runnable unhold = () -> {};
    private volatile Runnable unlisten = () -> {};

    Guard(ByteSequence key, LeaseKeeper.Lease lease) {
      this.key = key;
      this.lease = lease;
    }

    void start() {
      unhold = lease.keeper.hold(this);
      unlisten =
          lease.keeper.listen(
              () -> {
                if (lease.gone != null) {
                  // Its keys go with the lease (the session revokes it); nothing is left to guard.
                  guards.remove(key, this);
                  stop();
                }
              });
    }

    void stop() {
      unhold.run();
      unlisten.run();
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
    public long rev() {
      return 0;
    }

    @Override
    public void read(List<KeyValue> found, long validUntil, long revision) {
      for (KeyValue kv : found) {
        long rev = kv.getCreateRevision();
        if (kv.getLease() == lease.id && !inUse(key) && deleting.getAndSet(rev) != rev) {
          log.warn(
              "candidate key {} (revision {}) appeared after its candidate left; deleting it",
              text(key),
              rev);
          session.ensure(
              "deleting the late candidate key " + text(key),
              () ->
                  session
                      .client()
                      .getKVClient()
                      .txn()
                      .If(EtcdOffice.createdAt(key, rev))
                      .Then(Op.delete(key, DeleteOption.DEFAULT))
                      .commit());
        }
      }
    }

    @Override
    public boolean confirmsTerm() {
      return false; // a late key found a round later is deleted a round later
    }

    @Override
    public void confirmed(long validUntil, long revision) {}

    @Override
    public void missing() {}
  }
}
