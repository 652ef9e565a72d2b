package dev.conch.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionEvent;
import dev.conch.ElectionOptions;
import dev.conch.LossReason;
import dev.conch.test.EtcdExtension;
import io.etcd.jetcd.Client;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The lease keeper's thread survives what it did not expect: a listener that throws, a client that
 * fails to build its lease client, a client closed under it. Once such an exception ended the
 * thread: no renewal again, every term over one TTL later, every campaign failing after its
 * timeout, and nothing in the log.
 */
@Timeout(90)
class EtcdKeeperFailureTest {

  private static final SessionOptions FAST =
      SessionOptions.defaults().withTtl(Duration.ofSeconds(3));

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private final Etcds etcds = new Etcds();

  @AfterEach
  void close() {
    etcds.close();
  }

  @Test
  void aListenerThatThrowsStopsNoRenewal() {
    EtcdSession session = etcds.session(etcds.client(etcd.cluster()), FAST);
    Election election = session.election(ElectionOptions.forOffice("throwing-listener"));
    election.start();
    await().atMost(Duration.ofSeconds(20)).until(election::isLeader);
    session.listen(
        () -> {
          throw new IllegalStateException("a listener's bug");
        });

    // Several TTLs: without renewals the term would have ended after one.
    assertLeadsThroughout(election, session, Duration.ofSeconds(8));
  }

  @Test
  void aClientThatFailsToBuildItsLeaseClientIsAskedAgain() {
    Client real = etcds.client(etcd.cluster());
    AtomicInteger failuresLeft = new AtomicInteger(3);
    Client flaky =
        (Client)
            Proxy.newProxyInstance(
                Client.class.getClassLoader(),
                new Class<?>[] {Client.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("getLeaseClient")
                      && failuresLeft.getAndDecrement() > 0) {
                    throw new IllegalStateException("lease client could not be built");
                  }
                  try {
                    return method.invoke(real, args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
    EtcdSession session = etcds.session(flaky, FAST);
    Election election = session.election(ElectionOptions.forOffice("flaky-client"));
    election.start();

    await().atMost(Duration.ofSeconds(30)).until(election::isLeader);
    assertThat(failuresLeft.get()).isNegative();
    assertLeadsThroughout(election, session, Duration.ofSeconds(5));
  }

  @Test
  void aClosedClientEndsTheTermsAndEveryLaterCampaignSaysWhy() throws Exception {
    Client client = etcds.client(etcd.cluster());
    EtcdSession session = etcds.session(client, FAST);
    Election election = session.election(ElectionOptions.forOffice("closed-client"));
    Queue<ElectionEvent.Lost> losses = new ConcurrentLinkedQueue<>();
    election.addListener(
        event -> {
          if (event instanceof ElectionEvent.Lost lost) {
            losses.add(lost);
          }
        });
    election.start();
    await().atMost(Duration.ofSeconds(20)).until(election::isLeader);

    client.close();

    await().atMost(Duration.ofSeconds(20)).until(() -> !losses.isEmpty());
    // Given up because it can never be renewed, not left to run out as if etcd were away.
    assertThat(losses.peek().reason()).isEqualTo(LossReason.RENEWAL_FAILED);
    Throwable refused = catchThrowable(() -> session.lease().get(30, TimeUnit.SECONDS));
    assertThat(refused).isInstanceOf(ExecutionException.class);
    assertThat(refused.getCause()).hasMessageContaining("etcd client of this session is closed");
  }

  private static void assertLeadsThroughout(
      Election election, EtcdSession session, Duration duration) {
    long start = session.keeper().current().validUntil;
    long until = System.nanoTime() + duration.toNanos();
    await()
        .atMost(duration.plusSeconds(10))
        .until(
            () -> {
              assertThat(election.isLeader()).isTrue();
              return System.nanoTime() - until > 0;
            });
    assertThat(session.keeper().current().validUntil).isGreaterThan(start);
  }
}
