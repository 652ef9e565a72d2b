package dev.conch.etcd;

import static dev.conch.etcd.EtcdCalls.bytes;
import static dev.conch.etcd.EtcdCalls.within;
import static dev.conch.etcd.EtcdOffice.FIRST;
import static dev.conch.etcd.EtcdOffice.createdAt;
import static dev.conch.etcd.EtcdOffice.leased;

import dev.conch.ConchException;
import dev.conch.EtcdUnavailableException;
import dev.conch.FencedLock;
import dev.conch.FencedLock.Grant;
import dev.conch.Holder;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One campaign for an office, a step each time etcd answers; nothing waits, so a campaign costs no
 * thread however long it follows. At any moment it either has one request under way or waits for
 * the deletion of the key ahead; a cancel (the candidate leaves) is acted on when the request under
 * way answers, or at once while waiting: the key is withdrawn only once what was asked of etcd is
 * known, so that a put still on its way cannot leave a ghost candidate behind (etcd#21128).
 *
 * <p>Longer than most files here, on purpose: the steps of a campaign share its state and its one
 * rule about cancelling, and read best in the order etcd answers them.
 */
final class EtcdCampaign {

  private static final Logger log = LoggerFactory.getLogger(EtcdOffice.class);

  private final CompletableFuture<Grant> result = new CompletableFuture<>();
  private final EtcdOffice lock;
  private final EtcdSession session;
  private final String office;
  private final Holder self;
  private final Consumer<Optional<Holder>> ahead;
  private final Runnable changed;

  // Guarded by this.
  private LeaseKeeper.@Nullable Lease lease;
  private @Nullable ByteSequence key;
  private @Nullable ByteSequence value;
  private long rev;
  private long seen = -1;
  private int puts;
  private boolean busy;
  // When the request last answered was sent: the start of what its answer confirms.
  private volatile long sentAt;
  // When the key ahead was last seen deleted: for the history, when a silent term ended.
  private volatile @Nullable Instant aheadGone;
  private @Nullable CompletableFuture<Boolean> waiting;
  private boolean withdrawn;
  private Runnable leave = () -> {};

  EtcdCampaign(
      EtcdOffice lock,
      EtcdSession session,
      Holder self,
      Consumer<Optional<Holder>> ahead,
      Runnable changed) {
    this.lock = lock;
    this.session = session;
    this.office = lock.office();
    this.self = self;
    this.ahead = ahead;
    this.changed = changed;
  }

  /** Starts the campaign; the future completes with the grant (see {@link FencedLock#campaign}). */
  CompletableFuture<Grant> start() {
    result.whenComplete(
        (grant, error) -> {
          if (result.isCancelled()) {
            cancelled();
          }
        });
    ask(() -> session.campaignLease(lock.leases()), this::granted);
    return result;
  }

  private void cancelled() {
    CompletableFuture<Boolean> stop;
    synchronized (this) {
      stop = waiting;
      if (stop == null && busy) {
        return; // the answer under way will see it
      }
    }
    if (stop != null) {
      stop.complete(false); // stops waiting; the wait's answer withdraws
    } else {
      withdraw();
    }
  }

  /**
   * Asks etcd {@code call} ({@code what}, for errors) and runs {@code next} with its answer: in the
   * session's line ({@link InFlight}), bounded by the call timeout from the moment it leaves;
   * {@link #sentAt} says when that was.
   */
  private <T> void askEtcd(String what, Supplier<CompletableFuture<T>> call, Consumer<T> next) {
    ask(
        () ->
            session
                .requests()
                .send(
                    () -> {
                      sentAt = session.ticker().nanoTime();
                      return within(call.get(), session.timeout(), what);
                    }),
        next);
  }

  /**
   * Sends {@code call} and runs {@code next} with etcd's answer, unless the campaign ended: then
   * nothing is sent, or the answer is only used to withdraw.
   */
  private <T> void ask(Supplier<CompletableFuture<T>> call, Consumer<T> next) {
    boolean asking;
    synchronized (this) {
      asking = !result.isDone();
      busy = asking;
    }
    if (!asking) {
      withdraw();
      return;
    }
    // Sent outside the monitor: jetcd's watch callbacks run under its client-wide lock and end in
    // this campaign's monitor, so holding it across a call into jetcd could deadlock.
    CompletableFuture<T> answer;
    try {
      answer = call.get();
    } catch (RuntimeException e) {
      answer = CompletableFuture.failedFuture(e); // a closed client throws at once
    }
    answer.whenComplete(
        (value, error) -> {
          synchronized (this) {
            busy = false;
            waiting = null;
          }
          if (result.isDone()) {
            withdraw();
          } else if (error != null) {
            fail(error);
          } else {
            try {
              next.accept(value);
            } catch (RuntimeException e) {
              fail(e);
            }
          }
        });
  }

  private void granted(LeaseKeeper.Lease granted) {
    synchronized (this) {
      lease = granted;
      key = lock.keyOf(granted);
      value = bytes(self.at(0, granted.id).toValueJson());
      leave = session.ghosts().use(key);
    }
    put();
  }

  /**
   * Writes the candidate's key and, in the same transaction, reads the first key of the election:
   * an uncontested campaign is won in one request. A key of this lease that exists already (an
   * earlier term, or an attempt whose answer was lost) is never adopted: its release may still be
   * pending, and a new term needs a new token. It is deleted, and the key written anew.
   */
  private void put() {
    if (puts++ == 2) {
      fail(new ConchException("office '" + office + "': could not write a fresh candidate key"));
      return;
    }
    askEtcd(
        "campaign for office '" + office + "'" + session.where(),
        () ->
            lock.kv()
                .txn()
                .If(createdAt(myKey(), 0))
                .Then(
                    Op.put(myKey(), myValue(), leased(myLease())), Op.get(lock.keyPrefix(), FIRST))
                .Else(Op.get(myKey(), GetOption.DEFAULT))
                .commit(),
        put -> {
          if (put.isSucceeded()) {
            long placed = put.getHeader().getRevision();
            synchronized (this) {
              rev = placed;
            }
            List<KeyValue> first = put.getGetResponses().get(0).getKvs();
            if (!first.isEmpty() && first.get(0).getCreateRevision() == placed) {
              won(new Read(placed, sentAt, placed));
            } else {
              look();
            }
            return;
          }
          long stale = put.getGetResponses().get(0).getKvs().get(0).getCreateRevision();
          askEtcd(
              "removing an old key of office '" + office + "'",
              () -> session.history().deleteKey(myKey(), stale),
              deleted -> put());
        });
  }

  /**
   * Looks whether a candidate is ahead: one linearizable transaction that confirms the candidate's
   * own key (etcd's recipe can report a win after its lease expired, etcd#19597) and reads the key
   * just ahead of it. After the predecessor's deletion, winning costs one watch event and one
   * request, as in {@code etcdctl elect}.
   */
  private void look() {
    requireAlive(myLease());
    GetOption justAhead =
        GetOption.builder()
            .isPrefix(true)
            .withSortField(GetOption.SortTarget.CREATE)
            .withSortOrder(GetOption.SortOrder.DESCEND)
            .withMaxCreateRevision(rev - 1)
            .withLimit(1)
            .build();
    askEtcd(
        "reading the candidates of office '" + office + "'",
        () ->
            lock.kv()
                .txn()
                .If(createdAt(myKey(), rev))
                .Then(Op.get(lock.keyPrefix(), justAhead))
                .commit(),
        look -> {
          if (!look.isSucceeded()) {
            requeue();
            return;
          }
          List<KeyValue> before = look.getGetResponses().get(0).getKvs();
          long revision = look.getHeader().getRevision();
          if (before.isEmpty()) {
            won(new Read(rev, sentAt, revision));
            return;
          }
          KeyValue predecessor = before.get(0);
          if (predecessor.getCreateRevision() != seen) {
            seen = predecessor.getCreateRevision();
            tellWhoLeads();
          }
          awaitDeletion(predecessor, revision + 1);
        });
  }

  /**
   * The candidate's own key is gone while it waited: a leader handed the office past it ({@link
   * EtcdOffice#handOver}), or someone deleted it. The same confirming read that found it gone is
   * what keeps it from leading meanwhile; it queues again at the back at once, with a new key, as
   * the same campaign (no failure, no back-off). Until the new key's revision is known, a
   * withdrawal matches it by value ({@link #withdraw}).
   */
  private void requeue() {
    log.info(
        "office '{}': own key (create revision {}) is gone while waiting, as after a hand-over"
            + " past this candidate; queuing again at the back",
        office,
        rev);
    synchronized (this) {
      rev = 0;
      seen = -1;
      puts = 0;
    }
    put();
  }

  private void tellWhoLeads() {
    session
        .requests()
        .send(
            () ->
                within(
                    lock.kv().get(lock.keyPrefix(), FIRST),
                    session.timeout(),
                    "reading the leader of office '" + office + "'"))
        .whenComplete(
            (first, error) -> {
              if (error == null && !result.isDone()) {
                ahead.accept(lock.holderOf(first));
              }
            });
  }

  /** Waits for the key ahead to go ({@link PredecessorWatch}), then looks again. */
  private void awaitDeletion(KeyValue predecessor, long fromRevision) {
    ask(
        () -> {
          CompletableFuture<Boolean> wait =
              PredecessorWatch.deletionOf(session, predecessor, fromRevision, myLease());
          boolean left;
          synchronized (this) {
            waiting = wait;
            left = result.isDone();
          }
          if (left) {
            wait.complete(false); // cancelled while the watch was set up: stop waiting now
          }
          return wait;
        },
        deleted -> {
          if (deleted) {
            session.countWakeup();
            aheadGone = session.options().clock().instant();
          }
          look();
        });
  }

  private void won(Read won) {
    Holder holder = self.since(session.options().clock().instant()).at(won.rev, myLease().id);
    Runnable left;
    synchronized (this) {
      left = leave;
    }
    EtcdGrant grant =
        new EtcdGrant(
            session, office, myKey(), holder, myLease(), changed, won.sentAt, won.revision, left);
    if (result.complete(grant)) {
      // After: the term starts without waiting for them.
      grant.watch();
      writeSince(grant, holder, myLease());
    } else {
      lock.release(grant); // cancelled as it won
    }
  }

  private void fail(Throwable error) {
    withdraw();
    Throwable cause = EtcdCalls.unwrap(error);
    result.completeExceptionally(
        cause instanceof ConchException
            ? cause
            : new EtcdUnavailableException(
                "campaign for office '"
                    + office
                    + "'"
                    + session.where()
                    + " failed: "
                    + EtcdCalls.describe(cause),
                cause));
  }

  /**
   * No ghost candidate (etcd#21128): the key goes now, or as soon as etcd answers. Before its
   * revision is known (the put timed out but may still be applied), it is matched by value, and
   * read in every round of the lease from now on, so that a put etcd applies after this delete is
   * undone too ({@link GhostKeys}).
   */
  private void withdraw() {
    ByteSequence mine;
    Cmp compare;
    boolean unknown;
    Runnable left;
    synchronized (this) {
      if (withdrawn || key == null) {
        return;
      }
      withdrawn = true;
      mine = key;
      unknown = rev == 0;
      compare =
          unknown
              ? new Cmp(myKey(), Cmp.Op.EQUAL, CmpTarget.value(myValue()))
              : createdAt(myKey(), rev);
      left = leave;
    }
    if (unknown) {
      session.ghosts().guard(mine, myLease());
    }
    left.run();
    session.ensure(
        "withdrawing from office '" + office + "'", () -> lock.deleteWhen(mine, compare));
  }

  /**
   * The read that found no candidate ahead of the candidate's key: the win.
   *
   * @param rev the key's create revision
   * @param sentAt the {@link dev.conch.Ticker} time the request was sent
   * @param revision the revision etcd answered at
   */
  private record Read(long rev, long sentAt, long revision) {}

  // Set by the grant, before any step that uses them.
  private LeaseKeeper.Lease myLease() {
    return Objects.requireNonNull(lease, "no lease yet");
  }

  private ByteSequence myKey() {
    return Objects.requireNonNull(key, "no key yet");
  }

  private ByteSequence myValue() {
    return Objects.requireNonNull(value, "no key yet");
  }

  /**
   * Writes the time of the win into the holder value, and the term's beginning into the office's
   * history ({@link TermHistory}), in one transaction, without waiting: they are for people reading
   * who leads and who led, not for the election, and must not delay the start of the term. Fenced
   * by the key's create revision, so it never touches a later key.
   */
  private void writeSince(EtcdGrant grant, Holder won, LeaseKeeper.Lease lease) {
    List<Op> then = new ArrayList<>();
    then.add(Op.put(grant.key(), bytes(won.toValueJson()), leased(lease)));
    then.addAll(session.history().beginOps(won));
    Op[] ops = then.toArray(Op[]::new);
    Instant gone = aheadGone;
    // Sent again after each renewal round until etcd answers: a term whose beginning was lost
    // would be missing from the history if it ends without a word. Once the key is gone, the
    // guard fails and the retries stop.
    session.ensure(
        "writing the beginning of term " + won.rev() + " of office '" + office + "'",
        () ->
            lock.kv()
                .txn()
                .If(createdAt(grant.key(), won.rev()))
                .Then(ops)
                .commit()
                .whenComplete(
                    (response, error) -> {
                      if (error == null) {
                        session.history().begun(grant, response, gone);
                      }
                    }));
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
}
