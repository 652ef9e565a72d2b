package dev.conch.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionEvent;
import dev.conch.ElectionOptions;
import dev.conch.test.EtcdCluster;
import dev.conch.test.EtcdExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An etcd that takes fewer operations per transaction than its default 128 ({@code --max-txn-ops}):
 * the round that confirms every held key in one transaction was refused in every round, so every
 * term lapsed one TTL after its win.
 */
@Timeout(120)
class EtcdMaxTxnOpsTest {

  private static final int OFFICES = 40;

  @RegisterExtension
  static final EtcdExtension etcd =
      EtcdExtension.of(EtcdCluster.builder().members(1).extraArgs("--max-txn-ops=16"));

  private final Etcds etcds = new Etcds();

  @AfterEach
  void close() {
    etcds.close();
  }

  @Test
  void moreTermsThanEtcdTakesOperationsInOneTransactionAllStayLed() {
    EtcdSession session = etcds.session(etcds.client(etcd.cluster()), SessionOptions.defaults());
    Queue<ElectionEvent.Lost> losses = new ConcurrentLinkedQueue<>();
    List<Election> elections = new ArrayList<>();
    for (int i = 0; i < OFFICES; i++) {
      Election election = session.election(ElectionOptions.forOffice("few-ops-" + i));
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
        .atMost(Duration.ofSeconds(60))
        .until(() -> elections.stream().allMatch(Election::isLeader));

    // Longer than the window W (8.5 s with the defaults): a term whose key cannot be confirmed ends
    // W after its last confirmation. (TTL 3 s, a 0.94 s outage budget, lost terms beside a full
    // CI run, before this change and after.)
    long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              assertThat(losses).isEmpty();
              assertThat(elections).allMatch(Election::isLeader);
              return System.nanoTime() - until > 0;
            });
  }
}
