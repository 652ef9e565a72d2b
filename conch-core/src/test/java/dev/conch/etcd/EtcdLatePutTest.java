package dev.conch.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.test.EtcdExtension;
import dev.conch.test.TcpProxy;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A campaign put that etcd applies after the campaign gave up on it: the request went over a slow
 * link (a {@link TcpProxy} that delays requests), the withdrawal over a fast one, so the withdrawal
 * found nothing to delete and the put landed afterwards, on the live lease of a session that stays
 * open. That key led the office against everyone, though its candidate had left.
 *
 * <p>The client sends its first campaign put over the slow link and everything else over the fast
 * one: what gRPC's round robin does when it picks a slow member for that one request.
 *
 * <p>It was flaky (2 of 5 clean-clone runs: the put never landed) for two faults of the test, not
 * of conch: the proxy held each chunk for the delay only after the chunk before it had gone on, so
 * a put whose headers and data reached the proxy in two reads (a loaded machine) had its data
 * arrive 16 s late, after etcd had given the request up (its deadline runs from the headers); and
 * the candidate left only at the slow link's deadline (4 s), so a slow close had not yet deleted
 * the key that its next campaign attempt wrote when the put came at 8 s, and the put found a key
 * and wrote nothing. The proxy now holds each chunk from when it came, and the candidate leaves as
 * soon as its campaign has given the put up.
 */
@Timeout(90)
class EtcdLatePutTest {

  private static final String OFFICE = "late-put";
  private static final Duration DELAY = Duration.ofSeconds(8);

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private final Etcds etcds = new Etcds();

  @AfterEach
  void close() {
    etcds.close();
  }

  @Test
  void aPutAppliedAfterItsCandidateLeftDoesNotHoldTheOffice() throws Exception {
    try (TcpProxy proxy = TcpProxy.start("127.0.0.1", etcd.cluster().member(0).clientPort())) {
      Client fast = etcds.client(etcd.cluster());
      // conch gives the put up after its 1 s timeout, the slow link's call after 4 s: the put
      // reaches etcd at 8 s, well before the call's cancellation does (at 12 s), which could
      // otherwise keep etcd from applying it on a loaded machine.
      Client slow =
          EtcdClients.builder(EtcdClients.parseEndpoints(proxy.endpoint()), Duration.ofSeconds(4))
              .build();
      etcds.track(slow::close);
      slow.getKVClient().get(bytes("/warm-up")).get(10, TimeUnit.SECONDS); // connected before
      proxy.delayRequests(DELAY);
      SlowFirstPut routing = new SlowFirstPut(fast, slow);
      ConcurrentLinkedQueue<WatchEvent> puts = new ConcurrentLinkedQueue<>();
      Watch.Watcher history =
          fast.getWatchClient()
              .watch(
                  bytes("/conch/v1/elect/" + OFFICE + "/"),
                  WatchOption.builder().isPrefix(true).withNoDelete(true).build(),
                  response -> puts.addAll(response.getEvents()));
      etcds.track(history::close);

      SessionOptions options =
          SessionOptions.defaults()
              .withTtl(Duration.ofSeconds(3))
              .withTimeout(Duration.ofSeconds(1));
      EtcdSession left = etcds.session(routing.client(), options);
      Election leaving = left.election(ElectionOptions.forOffice(OFFICE));
      leaving.start();
      // conch gave the put up after its 1 s timeout and campaigns again, over the fast link: the
      // candidate leaves now, before etcd gets the put. Not later (the slow link's own deadline
      // is at 4 s): its key, written again by the new attempt, must be gone before the put comes,
      // or the put finds a key and writes nothing, and a close on a loaded machine takes time.
      await().atMost(Duration.ofSeconds(20)).until(() -> routing.puts.get() >= 2);
      // Read before the close: the put lands 8 s after it was sent, after the campaign gave it
      // up.
      long gaveUpAt =
          fast.getKVClient()
              .get(bytes("/warm-up"))
              .get(10, TimeUnit.SECONDS)
              .getHeader()
              .getRevision();
      leaving.close();

      // The put lands now, on the lease of the session that stays open.
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  puts.stream()
                      .anyMatch(
                          e ->
                              e.getKeyValue().getLease() == left.leaseId()
                                  && e.getKeyValue().getCreateRevision() > gaveUpAt));

      EtcdSession other = etcds.session(etcds.client(etcd.cluster()), SessionOptions.defaults());
      Election next = other.election(ElectionOptions.forOffice(OFFICE));
      next.start();
      await().atMost(Duration.ofSeconds(20)).until(next::isLeader);
      assertThat(left.isAlive()).as("the session that left stays open").isTrue();
      etcds.close(); // before the proxy
    }
  }

  private static ByteSequence bytes(String text) {
    return ByteSequence.from(text, StandardCharsets.UTF_8);
  }

  /** A client that sends the first transaction with a put over {@code slow}, all else over fast. */
  private static final class SlowFirstPut {
    private final Client fast;
    private final Client slow;
    private final AtomicBoolean sent = new AtomicBoolean();
    final AtomicInteger puts = new AtomicInteger();

    SlowFirstPut(Client fast, Client slow) {
      this.fast = fast;
      this.slow = slow;
    }

    Client client() {
      return Etcds.interceptTxns(fast, this::commit);
    }

    /** Sends a transaction over the fast link, but the first put over the slow one. */
    private CompletableFuture<TxnResponse> commit(Etcds.RecordedTxn txn) {
      boolean put = txn.thens.stream().anyMatch(op -> op instanceof Op.PutOp);
      if (put && txn.cmps.size() == 1 && txn.elses.size() == 1) {
        puts.incrementAndGet(); // a campaign's put: If(no key) Then(put, get) Else(get)
      }
      boolean late = put && sent.compareAndSet(false, true);
      return txn.send(late ? slow : fast);
    }
  }
}
