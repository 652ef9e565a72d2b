package dev.conch.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionEvent;
import dev.conch.ElectionOptions;
import dev.conch.test.EtcdExtension;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The shared threads on which etcd's answers arrive: a callback that waits there holds up nothing
 * but itself, and conch's own waits for etcd are refused there.
 */
@Timeout(60)
class CallThreadsTest {

  private static final int THREADS = Math.max(2, Runtime.getRuntime().availableProcessors());

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private final Etcds etcds = new Etcds();
  private final CountDownLatch release = new CountDownLatch(1);

  @AfterEach
  void close() {
    release.countDown();
    etcds.close();
  }

  @Test
  void workQueuedBehindCallbacksThatWaitOnEveryThreadStillRuns() {
    for (int i = 0; i < THREADS + 1; i++) {
      CallThreads.executor().execute(this::waitForRelease);
    }

    CompletableFuture<String> behind =
        CompletableFuture.supplyAsync(
            () -> Thread.currentThread().getName(), CallThreads.executor());

    assertThat(behind).succeedsWithin(Duration.ofSeconds(10)).asString().startsWith("conch-etcd-");
  }

  @Test
  void yourCallbacksThatWaitOnTheSessionsClientCostItNoTerm() throws Exception {
    Client client = etcds.client(etcd.cluster());
    EtcdSession session =
        etcds.session(client, SessionOptions.defaults().withTtl(Duration.ofSeconds(2)));
    Election election = session.election(ElectionOptions.forOffice("callbacks"));
    Queue<ElectionEvent> losses = new ConcurrentLinkedQueue<>();
    election.addListener(
        event -> {
          if (event instanceof ElectionEvent.Lost) {
            losses.add(event);
          }
        });
    election.start();
    await().atMost(Duration.ofSeconds(20)).until(election::isLeader);

    // A user's own reads on the same client, each answered by a callback that then waits (a
    // database write in a thenAccept), more of them than the pool has threads, for longer than
    // the lease's TTL: the renewals' answers arrive on the same threads.
    ByteSequence key = ByteSequence.from("user-key", StandardCharsets.UTF_8);
    CountDownLatch finished = new CountDownLatch(THREADS + 1);
    for (int i = 0; i < THREADS + 1; i++) {
      client
          .getKVClient()
          .get(key)
          .thenAccept(
              read -> {
                waitFor(Duration.ofSeconds(5));
                finished.countDown();
              });
    }
    assertThat(finished.await(30, TimeUnit.SECONDS)).isTrue();

    assertThat(losses).isEmpty();
    assertThat(election.isLeader()).isTrue();
  }

  @Test
  void conchsOwnWaitsForEtcdAreRefusedOnTheseThreads() {
    assumeThat(CallThreads.class.desiredAssertionStatus()).as("assertions on").isTrue();

    CompletableFuture<Object> waited =
        CompletableFuture.supplyAsync(
            () ->
                EtcdCalls.awaitUninterruptibly(
                    new CompletableFuture<>(), Duration.ofSeconds(1), "a test's read"),
            CallThreads.executor());

    assertThat(waited)
        .failsWithin(Duration.ofSeconds(10))
        .withThrowableOfType(ExecutionException.class)
        .withMessageContaining("waiting for a test's read on conch-etcd-");
  }

  private void waitForRelease() {
    try {
      release.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void waitFor(Duration time) {
    try {
      Thread.sleep(time.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
