package dev.conch.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionEvent;
import dev.conch.ElectionOptions;
import dev.conch.Holder;
import dev.conch.LossReason;
import dev.conch.TransferRefusedException;
import dev.conch.test.EtcdCluster;
import dev.conch.test.EtcdExtension;
import io.etcd.jetcd.Client;
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

  /**
   * The limit the keeper learned from etcd's refusal (16 here) is the one a hand-over is planned
   * against: past 13 candidates (16 operations: 14 deletes and the history's put and trim) it is
   * made; past 14 (17 operations) etcd would refuse it after the term ended, so the plan refuses it
   * first ({@link #aHandOverPastMoreThanTheLearnedLimitIsRefusedUpFront}).
   */
  @Test
  void aHandOverAtTheLearnedLimitIsMade() throws Exception {
    Client client = etcds.client(etcd.cluster());
    EtcdSession session = learned(client, "limit-at");
    Election a = lead(session, "limit-at");
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 13; i++) {
      ids.add("c" + i);
    }
    ids.add("t");
    EtcdHandOverLimitTest.queue(client, "limit-at", ids);

    a.transfer("t");

    assertThat(session.leader("limit-at")).map(Holder::id).hasValue("t");
    // The history's two writes were in the transaction at the limit.
    assertThat(session.history("limit-at", 1))
        .singleElement()
        .satisfies(term -> assertThat(term.reason()).isEqualTo(LossReason.TRANSFERRED));
  }

  @Test
  void aHandOverPastMoreThanTheLearnedLimitIsRefusedUpFront() throws Exception {
    Client client = etcds.client(etcd.cluster());
    EtcdSession session = learned(client, "limit-past");
    Election a = lead(session, "limit-past");
    long token = a.token().orElseThrow();
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 14; i++) {
      ids.add("c" + i);
    }
    ids.add("t");
    EtcdHandOverLimitTest.queue(client, "limit-past", ids);

    assertThatThrownBy(() -> a.transfer("t"))
        .isInstanceOf(TransferRefusedException.class)
        .hasMessageContaining("14 candidates stand between")
        .hasMessageContaining("take 17 operations")
        .hasMessageContaining("at most 16");
    assertThat(a.isLeader()).isTrue();
    assertThat(a.token()).hasValue(token);
  }

  /** A session that leads more offices than etcd takes reads in one transaction: it learns 16. */
  private EtcdSession learned(Client client, String name) throws InterruptedException {
    EtcdSession session = etcds.session(client, SessionOptions.defaults());
    for (int i = 0; i < 20; i++) {
      lead(session, name + "-" + i);
    }
    EtcdOffice office = new EtcdOffice(session, name);
    await().atMost(Duration.ofSeconds(30)).until(() -> office.maxTxnOps() == 16);
    return session;
  }

  private Election lead(EtcdSession session, String office) throws InterruptedException {
    Election election = session.election(ElectionOptions.builder(office).candidateId("a").build());
    etcds.track(election);
    election.start();
    assertThat(election.awaitLeadership(Duration.ofSeconds(30))).isTrue();
    return election;
  }
}
