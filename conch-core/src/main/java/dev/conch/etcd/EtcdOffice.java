package dev.conch.etcd;

import static dev.conch.etcd.EtcdCalls.awaitUninterruptibly;
import static dev.conch.etcd.EtcdCalls.bytes;
import static dev.conch.etcd.EtcdCalls.text;
import static dev.conch.etcd.EtcdCalls.within;

import dev.conch.FencedLock;
import dev.conch.Holder;
import dev.conch.TermRecord;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
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
final class EtcdOffice implements FencedLock {

  private static final Logger log = LoggerFactory.getLogger(EtcdOffice.class);

  private final EtcdSession session;
  private final LeaseKeeper leases;
  private final String office;
  private final String election;
  private final ByteSequence keyPrefix;

  /** The first candidate of an election: the leader. */
  static final GetOption FIRST =
      GetOption.builder()
          .isPrefix(true)
          .withSortField(GetOption.SortTarget.CREATE)
          .withSortOrder(GetOption.SortOrder.ASCEND)
          .withLimit(1)
          .build();

  /** Every candidate of an election, the leader first. */
  private static final GetOption LINE =
      GetOption.builder()
          .isPrefix(true)
          .withSortField(GetOption.SortTarget.CREATE)
          .withSortOrder(GetOption.SortOrder.ASCEND)
          .build();

  /** The election of {@code office} on the session's first lease (reads, and tests). */
  EtcdOffice(EtcdSession session, String office) {
    this(session, office, session.keeper());
  }

  /** The election of {@code office}, campaigning on the lease {@code leases} keeps. */
  EtcdOffice(EtcdSession session, String office, LeaseKeeper leases) {
    this.session = session;
    this.leases = leases;
    this.office = office;
    this.election = session.options().electionName(office);
    this.keyPrefix = bytes(election + "/");
  }

  @Override
  public String office() {
    return office;
  }

  /** Who keeps the lease this office campaigns on. */
  LeaseKeeper leases() {
    return leases;
  }

  /** The prefix of every candidate's key: {@code <prefix><office>/}. */
  ByteSequence keyPrefix() {
    return keyPrefix;
  }

  /** The key of the candidate on {@code lease}. */
  ByteSequence keyOf(LeaseKeeper.Lease lease) {
    return keyOf(lease.id);
  }

  /** The key of a candidate on the lease {@code leaseId}, as conch and etcd's recipe write it. */
  private ByteSequence keyOf(long leaseId) {
    return bytes(election + "/" + Long.toHexString(leaseId));
  }

  @Override
  public CompletableFuture<Grant> campaign(
      Holder self, Consumer<Optional<Holder>> ahead, Runnable changed) {
    return new EtcdCampaign(this, session, self, ahead, changed).start();
  }

  @Override
  public boolean reportCampaignFailure(Throwable failure) {
    if (failure instanceof LeaseUnavailableException) {
      session.campaignFailures().failed(office, failure);
      return true;
    }
    return false;
  }

  @Override
  public CompletableFuture<Void> release(Grant grant) {
    EtcdGrant held = (EtcdGrant) grant;
    held.stop();
    return session
        .ensure("resigning office '" + office + "'", () -> session.history().release(held))
        .whenComplete((done, error) -> held.released());
  }

  @Override
  public CompletableFuture<List<TermRecord>> history(int limit) {
    return session.history().read(office, limit);
  }

  @Override
  public Optional<Holder> leader() {
    GetResponse first =
        awaitUninterruptibly(
            kv().get(keyPrefix, FIRST),
            session.timeout(),
            "reading the leader of office '" + office + "'");
    return holderOf(first);
  }

  Optional<Holder> holderOf(GetResponse first) {
    return first.getKvs().stream()
        .findFirst()
        .map(
            kv -> Holder.parse(office, text(kv.getValue()), kv.getCreateRevision(), kv.getLease()));
  }

  /**
   * A key whose name is not the one conch gives its lease's candidate is not conch's, whatever its
   * value: a hand-over could not name it in its compares.
   */
  @Override
  public CompletableFuture<List<Holder>> candidates() {
    return within(
            kv().get(keyPrefix, LINE),
            session.timeout(),
            "reading the line of office '" + office + "'")
        .thenApply(
            line -> {
              List<Holder> holders = new ArrayList<>();
              for (KeyValue kv : line.getKvs()) {
                String value = text(kv.getValue());
                Holder holder = Holder.parse(office, value, kv.getCreateRevision(), kv.getLease());
                if (holder.isConch() && !kv.getKey().equals(keyOf(kv.getLease()))) {
                  holder =
                      new Holder(
                          office,
                          null,
                          0,
                          null,
                          null,
                          kv.getCreateRevision(),
                          kv.getLease(),
                          value);
                }
                holders.add(holder);
              }
              return holders;
            });
  }

  /**
   * One Txn: {@code If(CreateRevision(own key) == token, CreateRevision(k) == rev for the keys
   * between and the target) Then(Delete(own key), Delete(each key between))}. The target then has
   * the smallest create revision, and its campaign, woken by the deletion of the key it waits
   * behind, wins; each candidate that stood between finds its own key gone when it wakes and queues
   * again at the back ({@link EtcdCampaign}).
   *
   * <p>The key stays in use until the transaction succeeded; when it did not, the release that
   * follows says when ({@link EtcdGrant#released}).
   */
  @Override
  public CompletableFuture<Boolean> handOver(Grant grant, Holder target, List<Holder> between) {
    EtcdGrant held = (EtcdGrant) grant;
    // Our own deletion is not news for the term (it is over): no watch tells it.
    held.stop();
    List<Cmp> compares = new ArrayList<>();
    List<Op> deletes = new ArrayList<>();
    compares.add(createdAt(held.key(), held.rev()));
    deletes.add(Op.delete(held.key(), DeleteOption.DEFAULT));
    for (Holder passed : between) {
      ByteSequence key = keyOf(passed.lease());
      compares.add(createdAt(key, passed.rev()));
      deletes.add(Op.delete(key, DeleteOption.DEFAULT));
    }
    compares.add(createdAt(keyOf(target.lease()), target.rev()));
    deletes.addAll(session.history().endOps(held));
    return within(
            kv().txn().If(compares.toArray(Cmp[]::new)).Then(deletes.toArray(Op[]::new)).commit(),
            session.timeout(),
            "handing office '" + office + "' over to '" + target.id() + "'" + session.where())
        .whenComplete(
            (answer, error) -> {
              if (error != null && LeaseKeeper.isTooManyOps(error)) {
                leases.refusedTxnOps(compares.size()); // the next plan refuses it
              }
            })
        .thenApply(
            answer -> {
              if (answer.isSucceeded()) {
                held.released();
              }
              return answer.isSucceeded();
            });
  }

  /** What this session learned of etcd's {@code --max-txn-ops} ({@link LeaseKeeper#maxTxnOps}). */
  @Override
  public int maxTxnOps() {
    return leases.maxTxnOps();
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
  CompletableFuture<TxnResponse> deleteWhen(ByteSequence key, Cmp compare) {
    return kv().txn().If(compare).Then(Op.delete(key, DeleteOption.DEFAULT)).commit();
  }

  /** The compare of every fenced operation: the key still has this create revision. */
  static Cmp createdAt(ByteSequence key, long rev) {
    return new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(rev));
  }

  KV kv() {
    return session.client().getKVClient();
  }

  static PutOption leased(LeaseKeeper.Lease lease) {
    return PutOption.builder().withLeaseId(lease.id).build();
  }
}
