package dev.conch.etcd;

import static dev.conch.etcd.EtcdCalls.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.Ticker;
import dev.conch.test.EtcdExtension;
import dev.conch.test.TcpProxy;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The session's one watch of deletions on a real etcd: a wait that begins after the watch saw its
 * deletion, a deletion while the watch is broken, and one that a compaction took.
 */
@Timeout(60)
class DeletionWatchTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private final Etcds etcds = new Etcds();

  @AfterEach
  void close() {
    etcds.close();
  }

  @Test
  void aWaitThatBeginsAfterTheWatchSawTheDeletionIsToldAtOnce() throws Exception {
    Client client = etcds.client(etcd.cluster());
    DeletionWatch watch = watch(client, "/dw-1/");
    long put = put(client, "/dw-1/a");
    watch.begin(put + 1);
    Told sentinel = new Told();
    watch.await(bytes("/dw-1/z"), put(client, "/dw-1/z") + 1, sentinel);

    delete(client, "/dw-1/a");
    delete(client, "/dw-1/z");
    // The watch delivers in revision order: once it told of z, it had seen a.
    assertThat(sentinel.result.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("deleted");

    Told late = new Told();
    watch.await(bytes("/dw-1/a"), put + 1, late);
    assertThat(late.result).isCompletedWithValue("deleted"); // before await returned
    assertThat(watch.waiting()).isZero();
  }

  @Test
  void aWaitFromBeforeTheWatchBeganIsUnknownAndOneAfterAReCreationIsNot() throws Exception {
    Client client = etcds.client(etcd.cluster());
    DeletionWatch watch = watch(client, "/dw-2/");
    long put = put(client, "/dw-2/a");
    watch.begin(put + 1);

    Told before = new Told();
    watch.await(bytes("/dw-2/a"), put, before);
    assertThat(before.result).isCompletedWithValue("unknown");

    long again = put(client, "/dw-2/a");
    Told after = new Told();
    watch.await(bytes("/dw-2/a"), again + 1, after);
    assertThat(after.result).isNotDone();
    delete(client, "/dw-2/a");
    assertThat(after.result.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("deleted");
  }

  @Test
  void aDeletionWhileTheWatchIsCutOffIsToldOnceItResumes() throws Exception {
    Client direct = etcds.client(etcd.cluster());
    try (TcpProxy proxy = TcpProxy.start("127.0.0.1", etcd.cluster().member(0).clientPort())) {
      DeletionWatch watch = watch(etcds.client(proxy.endpoint()), "/dw-3/");
      Told told = cutOffWhileAWaitedKeyIsDeleted(proxy, direct, watch, "/dw-3/");
      put(direct, "/dw-3/other"); // and more revisions after it
      TimeUnit.MILLISECONDS.sleep(DeletionWatch.RETRY.toMillis() * 2); // it retries meanwhile
      assertThat(told.result).isNotDone();
      proxy.restore();

      assertThat(told.result.get(TIMEOUT.toSeconds() * 2, TimeUnit.SECONDS)).isEqualTo("deleted");
      assertThat(watch.restarts()).isPositive();
      etcds.close(); // before the proxy
    }
  }

  @Test
  void aWaitWhoseDeletionACompactionTookWhileTheWatchWasCutOffIsUnknown() throws Exception {
    Client direct = etcds.client(etcd.cluster());
    try (TcpProxy proxy = TcpProxy.start("127.0.0.1", etcd.cluster().member(0).clientPort())) {
      DeletionWatch watch = watch(etcds.client(proxy.endpoint()), "/dw-4/");
      Told told = cutOffWhileAWaitedKeyIsDeleted(proxy, direct, watch, "/dw-4/");
      long last = put(direct, "/dw-4/other");
      direct.getKVClient().compact(last).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      proxy.restore();

      assertThat(told.result.get(TIMEOUT.toSeconds() * 2, TimeUnit.SECONDS)).isEqualTo("unknown");
      // It watches on from the compaction: a later deletion is told.
      long again = put(direct, "/dw-4/b");
      Told next = new Told();
      watch.await(bytes("/dw-4/b"), again + 1, next);
      delete(direct, "/dw-4/b");
      assertThat(next.result.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("deleted");
      etcds.close(); // before the proxy
    }
  }

  /**
   * Begins {@code watch}, waits on {@code <prefix>a} and sees the stream up; then cuts the watch's
   * connection off (black-holed, reset) and deletes the key directly. Returns the wait.
   */
  private static Told cutOffWhileAWaitedKeyIsDeleted(
      TcpProxy proxy, Client direct, DeletionWatch watch, String prefix) throws Exception {
    long put = put(direct, prefix + "a");
    watch.begin(put + 1);
    Told told = new Told();
    watch.await(bytes(prefix + "a"), put + 1, told);
    awaitWatching(direct, watch, prefix);

    proxy.blackhole();
    proxy.dropConnections();
    delete(direct, prefix + "a");
    return told;
  }

  /** Waits until the watch tells of a deletion, so that its stream is known to be up. */
  private static void awaitWatching(Client direct, DeletionWatch watch, String prefix)
      throws Exception {
    String key = prefix + "probe";
    long put = put(direct, key);
    Told probe = new Told();
    watch.await(bytes(key), put + 1, probe);
    delete(direct, key);
    assertThat(probe.result.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("deleted");
  }

  private DeletionWatch watch(Client client, String prefix) {
    DeletionWatch watch = new DeletionWatch(client::getWatchClient, bytes(prefix), Ticker.SYSTEM);
    etcds.track(watch);
    return watch;
  }

  private static long put(Client client, String key) throws Exception {
    return client
        .getKVClient()
        .put(bytes(key), ByteSequence.from(new byte[] {1}))
        .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
        .getHeader()
        .getRevision();
  }

  private static void delete(Client client, String key) throws Exception {
    client.getKVClient().delete(bytes(key)).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
  }

  /** What a waiter was told: "deleted" or "unknown". */
  private static final class Told implements DeletionWatch.Waiter {
    final CompletableFuture<String> result = new CompletableFuture<>();

    @Override
    public void deleted() {
      result.complete("deleted");
    }

    @Override
    public void unknown() {
      result.complete("unknown");
    }
  }
}
