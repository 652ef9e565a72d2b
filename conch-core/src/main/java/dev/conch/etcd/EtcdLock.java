package dev.conch.etcd;

import static dev.conch.etcd.EtcdCalls.await;
import static dev.conch.etcd.EtcdCalls.awaitUninterruptibly;
import static dev.conch.etcd.EtcdCalls.bytes;
import static dev.conch.etcd.EtcdCalls.text;

import dev.conch.ConchException;
import dev.conch.FencedLock;
import dev.conch.Holder;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The election of one office in etcd, byte for byte as etcd's {@code concurrency.Election} and
 * {@code etcdctl elect} keep it: a candidate's key is {@code <prefix><office>/<lease hex>}, and the
 * candidate with the smallest create revision leads. Campaigning is done here with KV, Txn and
 * Watch rather than etcd's election service, so that every wait has a deadline, a lost lease ends
 * the campaign, and the win is confirmed before it is believed.
 */
final class EtcdLock implements FencedLock {

  private static final Logger log = LoggerFactory.getLogger(EtcdLock.class);

  private final EtcdSession session;
  private final String office;
  private final String election;
  private final ByteSequence keyPrefix;

  /** How many renew intervals a follower waits before it reads the candidates again by itself. */
  private static final int FOLLOWER_RECHECK = 30;

  /** The first candidate of an election: the leader. */
  private static final GetOption FIRST =
      GetOption.builder()
          .isPrefix(true)
          .withSortField(GetOption.SortTarget.CREATE)
          .withSortOrder(GetOption.SortOrder.ASCEND)
          .withLimit(1)
          .build();

  EtcdLock(EtcdSession session, String office) {
    this.session = session;
    this.office = office;
    this.election = session.options().electionName(office);
    this.keyPrefix = bytes(election + "/");
  }

  @Override
  public String office() {
    return office;
  }

  @Override
  public Grant acquire(Holder self, Consumer<Optional<Holder>> ahead, Runnable changed)
      throws InterruptedException {
    LeaseKeeper.Lease lease = session.lease();
    ByteSequence key = bytes(election + "/" + Long.toHexString(lease.id));
    ByteSequence value = bytes(self.at(0, lease.id).toValueJson());
    long rev = 0;
    try {
      Read placed = put(key, value, lease);
      rev = placed.rev;
      Read won = placed.first ? placed : waitForPredecessors(key, rev, lease, ahead);
      Holder holder = self.since(session.options().clock().instant()).at(rev, lease.id);
      writeSince(key, holder, lease);
      return new EtcdGrant(session, office, key, holder, lease, changed, won.sentAt, won.revision);
    } catch (InterruptedException | RuntimeException e) {
      // No ghost candidate (etcd#21128): the key goes now, or as soon as etcd answers. Before its
      // revision is known (the put timed out but may still be applied), match it by value.
      long created = rev;
      // An interrupt (resign while campaigning) must not cut the withdrawal short.
      boolean interrupted = Thread.interrupted();
      try {
        session.ensure(
            "withdrawing from office '" + office + "'",
            () ->
                deleteWhen(
                    key,
                    created > 0
                        ? createdAt(key, created)
                        : new Cmp(key, Cmp.Op.EQUAL, CmpTarget.value(value))));
      } finally {
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
      throw e;
    }
  }

  /**
   * A read that placed or confirmed the candidate's key.
   *
   * @param rev the key's create revision
   * @param first whether no candidate was ahead of it
   * @param sentAt the {@link dev.conch.Ticker} time the request was sent
   * @param revision the revision etcd answered at
   */
  private record Read(long rev, boolean first, long sentAt, long revision) {}

  /**
   * Writes the candidate's key and, in the same transaction, reads the first key of the election:
   * an uncontested campaign is won in one request. A key of this lease that exists already (an
   * earlier term, or an attempt whose answer was lost) is never adopted: its release may still be
   * pending, and a new term needs a new token. It is deleted, and the key written anew.
   */
  private Read put(ByteSequence key, ByteSequence value, LeaseKeeper.Lease lease)
      throws InterruptedException {
    for (int attempt = 0; attempt < 2; attempt++) {
      long sentAt = session.ticker().nanoTime();
      TxnResponse put =
          await(
              kv().txn()
                  .If(createdAt(key, 0))
                  .Then(Op.put(key, value, leased(lease)), Op.get(keyPrefix, FIRST))
                  .Else(Op.get(key, GetOption.DEFAULT))
                  .commit(),
              session.timeout(),
              "campaign for office '" + office + "'");
      if (put.isSucceeded()) {
        long rev = put.getHeader().getRevision();
        List<KeyValue> first = put.getGetResponses().get(0).getKvs();
        boolean alone = !first.isEmpty() && first.get(0).getCreateRevision() == rev;
        return new Read(rev, alone, sentAt, rev);
      }
      long stale = put.getGetResponses().get(0).getKvs().get(0).getCreateRevision();
      await(
          deleteWhen(key, createdAt(key, stale)),
          session.timeout(),
          "removing an old key of office '" + office + "'");
    }
    throw new ConchException("office '" + office + "': could not write a fresh candidate key");
  }

  /**
   * Waits until no candidate is ahead. Each look is one linearizable transaction that confirms the
   * candidate's own key (etcd's recipe can report a win after its lease expired, etcd#19597) and
   * reads the key just ahead of it: after the predecessor's deletion, winning costs one watch event
   * and one request, as in {@code etcdctl elect}.
   */
  private Read waitForPredecessors(
      ByteSequence key, long rev, LeaseKeeper.Lease lease, Consumer<Optional<Holder>> ahead)
      throws InterruptedException {
    long seen = -1;
    GetOption justAhead =
        GetOption.builder()
            .isPrefix(true)
            .withSortField(GetOption.SortTarget.CREATE)
            .withSortOrder(GetOption.SortOrder.DESCEND)
            .withMaxCreateRevision(rev - 1)
            .withLimit(1)
            .build();
    while (true) {
      requireAlive(lease);
      long sentAt = session.ticker().nanoTime();
      TxnResponse look =
          await(
              kv().txn().If(createdAt(key, rev)).Then(Op.get(keyPrefix, justAhead)).commit(),
              session.timeout(),
              "reading the candidates of office '" + office + "'");
      if (!look.isSucceeded()) {
        throw new ConchException("office '" + office + "': own key vanished while campaigning");
      }
      List<KeyValue> before = look.getGetResponses().get(0).getKvs();
      long revision = look.getHeader().getRevision();
      if (before.isEmpty()) {
        return new Read(rev, true, sentAt, revision);
      }
      KeyValue predecessor = before.get(0);
      if (predecessor.getCreateRevision() != seen) {
        seen = predecessor.getCreateRevision();
        ahead.accept(leader());
      }
      if (awaitDeletion(predecessor, revision + 1, lease)) {
        session.countWakeup();
      }
    }
  }

  /**
   * Writes the time of the win into the holder value, without waiting: it is for people reading who
   * leads, not for the election, and must not delay the start of the term. Fenced by the key's
   * create revision, so it never touches a later key.
   */
  private void writeSince(ByteSequence key, Holder won, LeaseKeeper.Lease lease) {
    kv().txn()
        .If(createdAt(key, won.rev()))
        .Then(Op.put(key, bytes(won.toValueJson()), leased(lease)))
        .commit() // bounded by the client's gRPC deadline; nothing waits for it
        .whenComplete(
            (response, error) -> {
              if (error != null) {
                log.debug(
                    "office '{}': could not write the time of the win: {}",
                    office,
                    error.toString());
              }
            });
  }

  /**
   * Waits until the predecessor's key is deleted, the lease changes, or {@value #FOLLOWER_RECHECK}
   * renew intervals pass (then the caller reads again). Two things can tell of the deletion: a
   * watch on that key alone, from the revision that found it (it requires an etcd leader, so a
   * member cut off from the quorum ends it at once instead of keeping it silent), and the lease
   * keeper's round, which reads the keys followers wait behind together with the leaders' keys: one
   * request per round for every office of the session, so a watch that resumed silently or stalled
   * delays the successor by one renew interval at most, and no follower re-reads on its own.
   *
   * @return whether a deletion was seen
   */
  private boolean awaitDeletion(KeyValue predecessor, long fromRevision, LeaseKeeper.Lease lease)
      throws InterruptedException {
    CompletableFuture<Boolean> deleted = new CompletableFuture<>();
    Watch.Watcher watcher =
        session
            .client()
            .getWatchClient()
            .watch(
                predecessor.getKey(),
                WatchOption.builder()
                    .withRevision(fromRevision)
                    .withNoPut(true)
                    .withRequireLeader(true)
                    .build(),
                Watch.listener(
                    response -> {
                      for (WatchEvent event : response.getEvents()) {
                        if (event.getEventType() == WatchEvent.EventType.DELETE) {
                          deleted.complete(true);
                        }
                      }
                    },
                    error -> deleted.complete(false),
                    () -> deleted.complete(false)));
    Runnable unhold = session.keeper().hold(new Ahead(predecessor, lease.id, deleted));
    Runnable unwatch =
        session.listen(
            () -> {
              if (lease.gone != null) {
                deleted.complete(false);
              }
            });
    try {
      // Only a belt: the watch and the keeper's rounds tell of the deletion, the keeper's listener
      // of a lost lease. Waking every office's follower on a timer would cost requests per office.
      return deleted.get(
          session.options().renewInterval().multipliedBy(FOLLOWER_RECHECK).toNanos(),
          TimeUnit.NANOSECONDS);
    } catch (TimeoutException | ExecutionException e) {
      return false; // no deletion seen: the caller reads again
    } finally {
      unwatch.run();
      unhold.run();
      watcher.close();
    }
  }

  /** The key a follower waits behind, read by the lease keeper in every round. */
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
    public void confirmed(long validUntil, long revision) {
      // still there: keep waiting
    }

    @Override
    public void missing() {
      deleted.complete(true);
    }
  }

  private void requireAlive(LeaseKeeper.Lease lease) {
    if (!lease.isAlive(session.ticker().nanoTime())) {
      throw new ConchException(
          "office '"
              + office
              + "': lease "
              + Long.toHexString(lease.id)
              + " lost while campaigning");
    }
  }

  @Override
  public void release(Grant grant) {
    EtcdGrant held = (EtcdGrant) grant;
    held.stop();
    session.ensure(
        "resigning office '" + office + "'",
        () -> deleteWhen(held.key(), createdAt(held.key(), held.rev())));
  }

  @Override
  public Optional<Holder> leader() {
    GetResponse first =
        awaitUninterruptibly(
            kv().get(keyPrefix, FIRST),
            session.timeout(),
            "reading the leader of office '" + office + "'");
    return first.getKvs().stream()
        .findFirst()
        .map(
            kv -> Holder.parse(office, text(kv.getValue()), kv.getCreateRevision(), kv.getLease()));
  }

  @Override
  public boolean guardedPut(Grant grant, String key, String value) {
    EtcdGrant held = (EtcdGrant) grant;
    return awaitUninterruptibly(
            kv().txn()
                .If(createdAt(held.key(), held.rev()))
                .Then(Op.put(bytes(key), bytes(value), PutOption.DEFAULT))
                .commit(),
            session.timeout(),
            "guarded write of '" + key + "'")
        .isSucceeded();
  }

  /** Deletes {@code key} only while {@code compare} (about that key) holds. */
  private CompletableFuture<TxnResponse> deleteWhen(ByteSequence key, Cmp compare) {
    return kv().txn().If(compare).Then(Op.delete(key, DeleteOption.DEFAULT)).commit();
  }

  /** The compare of every fenced operation: the key still has this create revision. */
  private static Cmp createdAt(ByteSequence key, long rev) {
    return new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(rev));
  }

  private KV kv() {
    return session.client().getKVClient();
  }

  private static PutOption leased(LeaseKeeper.Lease lease) {
    return PutOption.builder().withLeaseId(lease.id).build();
  }
}
