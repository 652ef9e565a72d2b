package dev.conch.spring.leaderonly;

import dev.conch.EtcdUnavailableException;
import dev.conch.Leadership;
import dev.conch.etcd.EtcdSession;
import dev.conch.etcd.SessionOptions;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Job records in etcd, under the session's meta root (DESIGN.md, "Keys that are not candidates"):
 * {@code <meta root>jobs/<office>/<job>}, e.g. {@code /conch/v1/meta/jobs/billing/com.example.
 * Invoices.send()}, never under the election's prefix, where a key would be taken for a candidate.
 * Each write is one transaction: {@code If(CreateRevision(leader key) == token, ModRevision(record)
 * == revision) Then Put(record)}, with no lease: a record outlives its term.
 */
public final class EtcdJobRecords implements JobRecords {

  private final EtcdSession session;

  /** Records on {@code session}'s client, under its meta root, within its call timeout. */
  public EtcdJobRecords(EtcdSession session) {
    this.session = session;
  }

  /** The key of {@code job}'s record in {@code office}. */
  public String key(String office, String job) {
    return this.session.options().metaRoot() + "jobs/" + office + "/" + job;
  }

  @Override
  public Optional<Versioned> read(String office, String job) {
    String key = key(office, job);
    List<KeyValue> kvs =
        await(this.session.client().getKVClient().get(bytes(key)), "reading " + key).getKvs();
    if (kvs.isEmpty()) {
      return Optional.empty();
    }
    KeyValue kv = kvs.get(0);
    return JobRecord.parse(kv.getValue().toString(StandardCharsets.UTF_8))
        .map(record -> new Versioned(record, kv.getModRevision()));
  }

  @Override
  public OptionalLong write(Leadership term, JobRecord record, long revision) {
    SessionOptions options = this.session.options();
    ByteSequence leaderKey =
        bytes(options.electionName(term.office()) + "/" + Long.toHexString(term.lease()));
    ByteSequence key = bytes(key(record.office(), record.job()));
    TxnResponse response =
        await(
            this.session
                .client()
                .getKVClient()
                .txn()
                .If(
                    new Cmp(leaderKey, Cmp.Op.EQUAL, CmpTarget.createRevision(term.token())),
                    new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(revision)))
                .Then(Op.put(key, bytes(record.toJson()), PutOption.DEFAULT))
                .commit(),
            "fenced write of " + key(record.office(), record.job()));
    return response.isSucceeded()
        ? OptionalLong.of(response.getHeader().getRevision())
        : OptionalLong.empty();
  }

  private <T> T await(CompletableFuture<T> call, String what) {
    Duration timeout = this.session.options().timeout();
    try {
      return call.get(Math.max(1, timeout.toNanos()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException ex) {
      call.cancel(true);
      throw new EtcdUnavailableException("etcd did not answer " + what + " in " + timeout, ex);
    } catch (ExecutionException ex) {
      throw new EtcdUnavailableException(what + " failed: " + ex.getCause(), ex.getCause());
    } catch (InterruptedException ex) {
      call.cancel(true);
      Thread.currentThread().interrupt();
      throw new EtcdUnavailableException(what + " was interrupted", ex);
    }
  }

  private static ByteSequence bytes(String text) {
    return ByteSequence.from(text, StandardCharsets.UTF_8);
  }
}
