package dev.conch.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionEvent;
import dev.conch.ElectionOptions;
import dev.conch.EventLog;
import dev.conch.Holder;
import dev.conch.State;
import dev.conch.TransferRefusedException;
import dev.conch.test.EtcdExtension;
import dev.conch.test.Etcdctl;
import io.etcd.jetcd.Client;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The named hand-over against a real etcd: what etcd's own tools put in line, and the candidates
 * whose keys a hand-over deletes.
 */
@Timeout(120)
class EtcdTransferTest {

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private static final AtomicInteger offices = new AtomicInteger();
  private static final Duration WAIT = Duration.ofSeconds(20);

  private final Etcds etcds = new Etcds();
  private Client client;
  private EtcdOffice reader;

  @AfterEach
  void close() {
    etcds.close();
  }

  private static String office() {
    return "transfer-" + offices.incrementAndGet() + "-" + System.nanoTime() % 100000;
  }

  private Election candidate(ElectionOptions options) {
    if (client == null) {
      client = etcds.client(etcd.cluster());
    }
    EtcdSession session =
        etcds.session(
            client,
            SessionOptions.defaults()
                .withTtl(Duration.ofSeconds(10))
                .withTimeout(Duration.ofSeconds(3)));
    Election election = session.election(options);
    etcds.track(election);
    return election;
  }

  private Election candidate(String office, String id) {
    return candidate(ElectionOptions.builder(office).candidateId(id).build());
  }

  /** The line of {@code office} as etcd holds it, leader first. */
  private List<Holder> line(String office) throws Exception {
    if (client == null) {
      client = etcds.client(etcd.cluster());
    }
    if (reader == null || !reader.office().equals(office)) {
      reader = new EtcdOffice(etcds.session(client, SessionOptions.defaults()), office);
    }
    return reader.candidates().get(10, TimeUnit.SECONDS);
  }

  @Test
  void anEtcdctlElectProposalBetweenRefusesTheHandOver() throws Exception {
    String office = office();
    Election a = candidate(office, "a");
    a.start();
    assertThat(a.awaitLeadership(WAIT)).isTrue();
    long token = a.token().orElseThrow();
    try (Etcdctl.Background proposal =
        Etcdctl.start(
            etcd.cluster().endpoints(), "elect", "/conch/v1/elect/" + office, "etcdctl-proposal")) {
      await().atMost(WAIT).until(() -> line(office).size() == 2);
      Election c = candidate(office, "c");
      c.start();
      await().atMost(WAIT).until(() -> c.state() == State.FOLLOWING);

      assertThatThrownBy(() -> a.transfer("c"))
          .isInstanceOf(TransferRefusedException.class)
          .hasMessageContaining("'c'")
          .hasMessageContaining("etcdctl-proposal")
          .hasMessageContaining("not written by conch");

      assertThat(a.isLeader()).isTrue();
      assertThat(a.token()).hasValue(token);
      assertThat(line(office))
          .extracting(Holder::raw)
          .containsExactly(null, "etcdctl-proposal", null);
      assertThat(proposal.lines()).noneMatch(l -> l.contains("etcdctl-proposal"));
    }
  }

  /**
   * A candidate whose key goes while it waits (as a hand-over past it deletes it) queues again at
   * the back within its campaign: its back-off after a failure here is a minute, longer than this
   * test waits, so a campaign that failed and backed off would not be back in line in time.
   */
  @Test
  void aCandidateWhoseKeyGoesWhileItWaitsQueuesAgainAtOnceAndNeverLeadsInBetween()
      throws Exception {
    String office = office();
    Election a = candidate(office, "a");
    a.start();
    assertThat(a.awaitLeadership(WAIT)).isTrue();
    Election b =
        candidate(
            ElectionOptions.builder(office)
                .candidateId("b")
                .retryInitial(Duration.ofMinutes(1))
                .retryMax(Duration.ofMinutes(1))
                .build());
    EventLog bLog = EventLog.of(b);
    b.start();
    await().atMost(WAIT).until(() -> b.state() == State.FOLLOWING);
    Election c = candidate(office, "c");
    c.start();
    await().atMost(WAIT).until(() -> c.state() == State.FOLLOWING);
    Holder before = line(office).get(1);
    assertThat(before.id()).isEqualTo("b");

    Etcdctl.Result deleted =
        Etcdctl.run(
            etcd.cluster().endpoints(),
            WAIT,
            "del",
            "/conch/v1/elect/" + office + "/" + before.leaseHex());
    assertThat(deleted.stdout().strip()).as(deleted.stderr()).isEqualTo("1");
    a.resign(); // wakes b, which waits on a's key, and c, which now waits on nothing

    assertThat(c.awaitLeadership(WAIT)).isTrue();
    await()
        .atMost(WAIT)
        .until(() -> line(office).stream().map(Holder::id).toList().equals(List.of("c", "b")));
    assertThat(line(office).get(1).rev()).isGreaterThan(c.token().orElseThrow());
    assertThat(b.state()).isEqualTo(State.FOLLOWING);
    assertThat(bLog.events(ElectionEvent.Leading.class)).isEmpty();
    assertThat(bLog.hooks()).isEmpty();
  }

  @Test
  void aCandidatePassedByAHandOverIsBackInLineAndLeadsAfterTheTarget() throws Exception {
    String office = office();
    Election a = candidate(office, "a");
    a.start();
    assertThat(a.awaitLeadership(WAIT)).isTrue();
    Election b =
        candidate(
            ElectionOptions.builder(office)
                .candidateId("b")
                .retryInitial(Duration.ofMinutes(1))
                .retryMax(Duration.ofMinutes(1))
                .build());
    EventLog bLog = EventLog.of(b);
    b.start();
    await().atMost(WAIT).until(() -> b.state() == State.FOLLOWING);
    Election c = candidate(office, "c");
    c.start();
    await().atMost(WAIT).until(() -> c.state() == State.FOLLOWING);
    a.resign(); // only b and c: b stands between the leader and the target
    assertThat(b.awaitLeadership(WAIT)).isTrue();
    b.transfer("c");
    assertThat(c.awaitLeadership(WAIT)).isTrue();
    Election d = candidate(office, "d");
    EventLog dLog = EventLog.of(d);
    d.start();
    await().atMost(WAIT).until(() -> d.state() == State.FOLLOWING);

    c.transfer("d"); // passes b, which queued again after the first hand-over

    assertThat(d.awaitLeadership(WAIT)).isTrue();
    // Leading is believed before its event is posted.
    await().atMost(WAIT).until(() -> dLog.events(ElectionEvent.Leading.class).size() == 1);
    assertThat(bLog.events(ElectionEvent.Leading.class)).hasSize(1); // only its own term
    await().atMost(WAIT).until(() -> line(office).size() == 3);
    assertThat(line(office).stream().map(Holder::id).toList().subList(1, 3))
        .containsExactlyInAnyOrder("b", "c");
  }
}
