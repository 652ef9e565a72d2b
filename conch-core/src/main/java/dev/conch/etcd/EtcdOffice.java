package dev.conch.etcd;

import static dev.conch.etcd.EtcdCalls.awaitUninterruptibly;
import static dev.conch.etcd.EtcdCalls.bytes;
import static dev.conch.etcd.EtcdCalls.text;

import dev.conch.FencedLock;
import dev.conch.Holder;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
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

  EtcdOffice(EtcdSession session, String office) {
    this.session = session;
    this.office = office;
    this.election = session.options().electionName(office);
    this.keyPrefix = bytes(election + "/");
  }

  @Override
  public String office() {
    return office;
  }

  /** The prefix of every candidate's key: {@code <prefix><office>/}. */
  ByteSequence keyPrefix() {
    return keyPrefix;
  }

  /** The key of the candidate on {@code lease}. */
  ByteSequence keyOf(LeaseKeeper.Lease lease) {
    return bytes(election + "/" + Long.toHexString(lease.id));
  }

  @Override
  public CompletableFuture<Grant> campaign(
      Holder self, Consumer<Optional<Holder>> ahead, Runnable changed) {
    return new EtcdCampaign(this, session, self, ahead, changed).start();
  }

  @Override
  public CompletableFuture<Void> release(Grant grant) {
    EtcdGrant held = (EtcdGrant) grant;
    held.stop();
    return session.ensure(
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
    return holderOf(first);
  }

  Optional<Holder> holderOf(GetResponse first) {
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
