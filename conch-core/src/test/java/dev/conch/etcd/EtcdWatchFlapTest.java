package dev.conch.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionEvent;
import dev.conch.ElectionOptions;
import dev.conch.test.EtcdExtension;
import dev.conch.test.TcpProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hundreds of terms on one session while the connection to etcd is reset again and again: every
 * reset breaks the session's watch (jetcd delivers the error under its client-wide watch lock), and
 * the session makes it again from where it stopped, while the lease keeper confirms every held key
 * in its rounds. Renewals must go on throughout and every term must stay held.
 *
 * <p>The suite resets for 10 s (a reset every 300 ms: over 30 rounds of broken watches); a longer
 * run: {@code -Dconch.flapSeconds=120 -Djunit.jupiter.execution.timeout.default=10m}.
 */
@Timeout(240)
class EtcdWatchFlapTest {

  private static final int OFFICES = 300;
  private static final Duration FLAPPING =
      Duration.ofSeconds(Long.getLong("conch.flapSeconds", 10));

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private final Etcds etcds = new Etcds();
  private final ScheduledExecutorService faults = Executors.newSingleThreadScheduledExecutor();

  @AfterEach
  void close() {
    faults.shutdownNow();
    etcds.close();
  }

  @Test
  void resetConnectionsWhileTheKeeperReWatchesHundredsOfTermsStopNoRenewal() {
    try (TcpProxy proxy = TcpProxy.start("127.0.0.1", etcd.cluster().member(0).clientPort())) {
      EtcdSession session =
          etcds.session(etcds.client(proxy.endpoint()), SessionOptions.defaults());
      Queue<ElectionEvent.Lost> losses = new ConcurrentLinkedQueue<>();
      List<Election> elections = new ArrayList<>();
      for (int i = 0; i < OFFICES; i++) {
        Election election = session.election(ElectionOptions.forOffice("flap-" + i));
        election.addListener(
            event -> {
              if (event instanceof ElectionEvent.Lost lost) {
                losses.add(lost);
              }
            });
        election.start();
        elections.add(election);
      }
      await()
          .atMost(Duration.ofSeconds(120))
          .until(() -> elections.stream().allMatch(Election::isLeader));

      long leaseBefore = session.keeper().current().validUntil;
      long watchesBefore = session.deletions().restarts();
      AtomicInteger resets = new AtomicInteger();
      faults.scheduleWithFixedDelay(
          () -> {
            proxy.dropConnections();
            resets.incrementAndGet();
          },
          0,
          300,
          TimeUnit.MILLISECONDS);
      long until = System.nanoTime() + FLAPPING.toNanos();
      await()
          .atMost(FLAPPING.plusSeconds(30))
          .until(
              () -> {
                assertThat(losses).isEmpty();
                return System.nanoTime() - until > 0;
              });
      faults.shutdownNow();

      // Renewed after the flapping, not only before: the keeper's thread still runs its rounds.
      long leaseAfterFlapping = session.keeper().current().validUntil;
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> session.keeper().current().validUntil > leaseAfterFlapping);
      assertThat(leaseAfterFlapping).isGreaterThan(leaseBefore);
      assertThat(resets.get()).isGreaterThan(10);
      // The resets broke the session's one watch and it was made again, many times over.
      assertThat(session.deletions().restarts() - watchesBefore).isGreaterThan(5);
      assertThat(losses).isEmpty();
      assertThat(elections).allMatch(Election::isLeader);
      etcds.close(); // before the proxy
    }
  }
}
