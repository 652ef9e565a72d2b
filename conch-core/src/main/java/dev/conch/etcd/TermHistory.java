package dev.conch.etcd;

import static dev.conch.etcd.EtcdCalls.bytes;
import static dev.conch.etcd.EtcdCalls.text;
import static dev.conch.etcd.EtcdCalls.within;
import static dev.conch.etcd.EtcdOffice.createdAt;

import dev.conch.Holder;
import dev.conch.LossReason;
import dev.conch.Setting;
import dev.conch.TermRecord;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import io.etcd.jetcd.options.PutOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The offices' history in etcd (DESIGN.md, "The flight recorder"): one key per term, {@code <meta
 * root>history/<office>/<token, 19 digits>}, outside every election's prefix, its value a {@link
 * TermRecord}. It costs no request of its own in a term's steady state: the beginning rides on the
 * guarded write of the win's time ({@link #beginOps}), the end on the guarded delete that releases
 * or hands the office over ({@link #endOps}), and the trim of terms beyond the last {@code N} on
 * the end. Only a term that ended without a word costs its successor one read (is the old lease
 * still there?) and one guarded write that closes it ({@link #begun}).
 */
public final class TermHistory {

  private static final Logger log = LoggerFactory.getLogger(TermHistory.class);

  /** The operations a term's beginning and end add to a transaction ({@link HandOver} counts). */
  public static final int END_OPS = 2;

  private final EtcdSession session;
  private final int terms;

  // The end records of released terms whose key may still be there (the release not yet answered
  // by etcd), by the key's create revision: a new campaign on the same lease that deletes such a
  // key deletes it with its end ({@link #deleteKey}).
  private final Map<Long, List<Op>> unreleased = new ConcurrentHashMap<>();

  TermHistory(EtcdSession session, int terms) {
    this.session = session;
    this.terms = terms;
  }

  /** The prefix of an office's history under {@code metaRoot}. */
  public static String prefix(String metaRoot, String office) {
    return metaRoot + "history/" + Setting.OFFICE.require(office) + "/";
  }

  /** The key of the term with {@code token}: zero-padded, so that keys sort as tokens do. */
  static String key(String metaRoot, String office, long token) {
    return prefix(metaRoot, office) + String.format("%019d", token);
  }

  private boolean off() {
    return terms == 0;
  }

  private ByteSequence keyOf(Holder holder) {
    return bytes(key(session.options().metaRoot(), holder.office(), holder.rev()));
  }

  private ByteSequence prefixOf(String office) {
    return bytes(prefix(session.options().metaRoot(), office));
  }

  /**
   * What the guarded write of a win adds: the term's record, then the last two records (this one
   * and the one before it: was that closed?) and the keys of the last N + 1 (the oldest of them and
   * all before it go with this term's end).
   */
  List<Op> beginOps(Holder holder) {
    if (off()) {
      return List.of();
    }
    ByteSequence prefix = prefixOf(holder.office());
    return List.of(
        Op.put(keyOf(holder), bytes(TermRecord.begun(holder).toJson()), PutOption.DEFAULT),
        Op.get(prefix, newest(2, false)),
        Op.get(prefix, newest(terms + 1, true)));
  }

  private static GetOption newest(int limit, boolean keysOnly) {
    return GetOption.builder()
        .isPrefix(true)
        .withSortField(GetOption.SortTarget.KEY)
        .withSortOrder(GetOption.SortOrder.DESCEND)
        .withLimit(limit)
        .withKeysOnly(keysOnly)
        .build();
  }

  /**
   * After the win's write succeeded: remembers where this term's end trims, and closes the term
   * before this one if it ended without a word.
   */
  void begun(EtcdGrant grant, TxnResponse written, @Nullable Instant predecessorGone) {
    if (off() || !written.isSucceeded() || written.getGetResponses().size() < 2) {
      return;
    }
    List<KeyValue> kept = written.getGetResponses().get(1).getKvs();
    if (kept.size() > terms) {
      grant.trimThrough(kept.get(kept.size() - 1).getKey());
    }
    List<KeyValue> lastTwo = written.getGetResponses().get(0).getKvs();
    if (lastTwo.size() == 2) {
      KeyValue before = lastTwo.get(1);
      TermRecord.parse(grant.leadership().office(), text(before.getValue()))
          .filter(TermRecord::isOpen)
          .ifPresent(open -> close(grant, open, before.getModRevision(), predecessorGone));
    }
  }

  /**
   * Closes a term that ended without a word, as its successor saw it: its lease gone means it
   * expired (or was revoked after a loss); its lease still there means its key was deleted. Guarded
   * by the record not having changed meanwhile, not by the successor's key: that term is over
   * whatever became of the successor since (it won, so the key was gone), and a successor whose own
   * term is short must still close it.
   */
  private void close(
      EtcdGrant successor, TermRecord open, long modRevision, @Nullable Instant gone) {
    Holder me = successor.leadership().holder();
    Instant won = me.since();
    Instant ended = gone != null ? gone : won != null ? won : session.options().clock().instant();
    String office = open.office();
    within(
            session
                .client()
                .getLeaseClient()
                .timeToLive(open.holder().lease(), LeaseOption.DEFAULT),
            session.timeout(),
            "reading the lease of the term before")
        .thenCompose(
            lease -> {
              boolean expired = lease.getTTL() < 0;
              LossReason reason = expired ? LossReason.LEASE_EXPIRED : LossReason.KEY_DELETED;
              String detail =
                  (expired
                          ? "its lease "
                              + open.holder().leaseHex()
                              + " expired (or was revoked): the holder stopped renewing it"
                          : "its key was deleted while its lease "
                              + open.holder().leaseHex()
                              + " was still alive")
                      + "; closed by its successor '"
                      + me.id()
                      + "' (token "
                      + me.rev()
                      + ")";
              TermRecord closed = open.end(ended, reason, detail, me.id());
              ByteSequence key = keyOf(open.holder());
              return within(
                  session
                      .client()
                      .getKVClient()
                      .txn()
                      .If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(modRevision)))
                      .Then(Op.put(key, bytes(closed.toJson()), PutOption.DEFAULT))
                      .commit(),
                  session.timeout(),
                  "closing the term before");
            })
        .whenComplete(
            (done, error) -> {
              if (error != null) {
                log.debug(
                    "office '{}': could not close term {} in the history: {}",
                    office,
                    open.token(),
                    error.toString());
              }
            });
  }

  /**
   * What the release or hand-over that ends a term adds to its transaction: the term's record with
   * its end, and the trim of the records beyond the last N. Empty without a recorded ending.
   */
  List<Op> endOps(EtcdGrant grant) {
    EtcdGrant.Ending ending = grant.ending();
    if (off() || ending == null) {
      return List.of();
    }
    Holder holder = grant.leadership().holder();
    TermRecord ended =
        TermRecord.begun(holder).end(ending.at(), ending.reason(), ending.detail(), holder.id());
    List<Op> ops = new ArrayList<>(END_OPS);
    ops.add(Op.put(keyOf(holder), bytes(ended.toJson()), PutOption.DEFAULT));
    ByteSequence through = grant.trimThrough();
    if (through != null) {
      ByteSequence end = through.concat(ByteSequence.from(new byte[] {0}));
      ops.add(Op.delete(prefixOf(holder.office()), DeleteOption.builder().withRange(end).build()));
    }
    return ops;
  }

  /**
   * Releases {@code grant}'s term: deletes its key with the term's end. Until etcd answered, the
   * end stays registered by the key's create revision, so that a new campaign on the same lease
   * that finds the key deletes it with the same end ({@link #deleteKey}): the end is written
   * whichever comes first.
   */
  CompletableFuture<TxnResponse> release(EtcdGrant grant) {
    List<Op> end = endOps(grant);
    if (!end.isEmpty()) {
      unreleased.put(grant.rev(), end);
    }
    return deleteKey(grant.key(), grant.rev());
  }

  /**
   * Deletes the key of a term (created at {@code rev}) while it has that create revision, with the
   * term's end when its release registered one and etcd has not answered that yet: a new campaign
   * that finds an old key of its own lease deletes it as the release would have.
   */
  CompletableFuture<TxnResponse> deleteKey(ByteSequence key, long rev) {
    List<Op> ops = new ArrayList<>();
    ops.add(Op.delete(key, DeleteOption.DEFAULT));
    ops.addAll(unreleased.getOrDefault(rev, List.of()));
    return session
        .client()
        .getKVClient()
        .txn()
        .If(createdAt(key, rev))
        .Then(ops.toArray(Op[]::new))
        .commit()
        .whenComplete(
            (answer, error) -> {
              if (error == null) {
                unreleased.remove(rev);
              }
            });
  }

  /**
   * The last {@code limit} terms of {@code office}, oldest first, each with the vacancy before it;
   * a damaged or foreign record is skipped with a warning.
   */
  CompletableFuture<List<TermRecord>> read(String office, int limit) {
    return within(
            session.client().getKVClient().get(prefixOf(office), newest(limit, false)),
            session.timeout(),
            "reading the history of office '" + office + "'")
        .thenApply(
            range -> {
              List<String> values = new ArrayList<>();
              for (KeyValue kv : range.getKvs()) {
                values.add(text(kv.getValue()));
              }
              return fromNewest(office, values);
            });
  }

  /**
   * The records of {@code office} from their stored values, newest first (as a read sorted
   * descending by key gives them): oldest first, each with the vacancy before it.
   */
  public static List<TermRecord> fromNewest(String office, List<String> newestFirst) {
    List<TermRecord> terms = new ArrayList<>();
    for (String value : newestFirst) {
      Optional<TermRecord> term = TermRecord.parse(office, value);
      if (term.isEmpty()) {
        log.warn("office '{}': skipped a history record that is not conch's: {}", office, value);
      } else {
        terms.add(term.get());
      }
    }
    Collections.reverse(terms);
    return TermRecord.withVacancies(terms);
  }
}
