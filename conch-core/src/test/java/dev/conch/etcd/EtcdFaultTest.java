package dev.conch.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionEvent;
import dev.conch.ElectionOptions;
import dev.conch.EventLog;
import dev.conch.LossReason;
import dev.conch.State;
import dev.conch.test.EtcdCluster;
import dev.conch.test.TcpProxy;
import io.etcd.jetcd.Client;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Faults against real etcd members: a partition between a leader and etcd, a paused member, an etcd
 * restart. Each test has a cluster of its own, since each breaks it.
 */
class EtcdFaultTest {

  private static final Duration TTL = Duration.ofSeconds(3);
  private static final Duration WAIT = Duration.ofSeconds(30);

  private final Etcds etcds = new Etcds();
  private EtcdCluster cluster;

  @AfterEach
  void close() {
    etcds.close();
    if (cluster != null) {
      cluster.close();
    }
  }

  private Election candidate(Client client, String id) {
    return etcds
        .session(client, SessionOptions.defaults().withTtl(TTL).withTimeout(Duration.ofSeconds(1)))
        .election(ElectionOptions.builder("jobs").candidateId(id).build());
  }

  @Test
  void partitionedLeaderStopsLeadingBeforeTheFollowerCanWin() throws Exception {
    cluster = EtcdCluster.start(1);
    try (TcpProxy proxy = TcpProxy.start("127.0.0.1", cluster.member(0).clientPort())) {
      Election a = candidate(etcds.client(proxy.endpoint()), "a");
      EventLog aLog = EventLog.of(a);
      a.start();
      assertThat(a.awaitLeadership(WAIT)).isTrue();
      Election b = candidate(etcds.client(cluster), "b");
      EventLog bLog = EventLog.of(b);
      b.start();
      await().atMost(WAIT).until(() -> b.state() == State.FOLLOWING);

      proxy.blackhole();

      assertThat(b.awaitLeadership(WAIT)).isTrue();
      assertThat(aLog.events(ElectionEvent.Lost.class))
          .extracting(ElectionEvent.Lost::reason)
          .containsExactly(LossReason.RENEWAL_FAILED);
      // a's work had stopped (its lose hook ran) before b's started: zero overlap.
      long aStopped = aLog.firstNanos("lost:RENEWAL_FAILED");
      long bStarted = bLog.firstNanos("acquired");
      assertThat(aStopped).isPositive().isLessThan(bStarted);
      assertThat(a.isLeader()).isFalse();

      proxy.restore();

      // Back in touch, a queues behind b: never two leaders, and no key of a's old lease is left.
      await().atMost(WAIT).until(() -> a.state() == State.FOLLOWING);
      assertThat(b.isLeader()).isTrue();
      await().atMost(WAIT).until(() -> Etcds.candidateKeys(cluster, "jobs") == 2);
    }
  }

  /**
   * A session whose renewal failed sends its campaign requests one at a time, and widens its line
   * again as etcd answers quickly: a member back from a cut campaigning for thousands of offices at
   * full width starved the other sessions' renewals (the scale soak, docs/chaos.md).
   */
  @Test
  void aFailedRenewalNarrowsTheSessionsLineUntilEtcdAnswersQuicklyAgain() throws Exception {
    cluster = EtcdCluster.start(1);
    try (TcpProxy proxy = TcpProxy.start("127.0.0.1", cluster.member(0).clientPort())) {
      EtcdSession session =
          etcds.session(
              etcds.client(proxy.endpoint()),
              SessionOptions.defaults().withTtl(TTL).withTimeout(Duration.ofSeconds(1)));
      List<Election> offices = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        Election office = session.election(ElectionOptions.forOffice("line-" + i));
        office.start();
        offices.add(office);
      }
      await().atMost(WAIT).until(() -> offices.stream().allMatch(Election::isLeader));
      assertThat(session.requests().window()).isEqualTo(EtcdSession.CAMPAIGN_REQUESTS);

      proxy.blackhole();
      await()
          .atMost(WAIT)
          .pollInterval(Duration.ofMillis(10))
          .until(() -> session.renewalFailures() > 0);
      // At once, from the failed round: no term has ended yet and no request of the line is slow
      // (a term ends TTL - stop timeout - margin after its last renewal, 1.5 s here, and its
      // campaign's requests time out a second after that).
      await()
          .atMost(Duration.ofMillis(1000))
          .pollInterval(Duration.ofMillis(10))
          .until(() -> session.requests().window() == 1);
      proxy.restore();

      // Campaigns answered quickly: one more under way after each.
      await()
          .atMost(WAIT)
          .until(
              () -> {
                offices.forEach(
                    office -> {
                      if (office.isLeader()) {
                        office.resignAsync().thenRun(office::start);
                      }
                    });
                return session.requests().window() > 2;
              });
    }
  }

  @Test
  void electionHasALeaderSoonAfterALongEtcdOutageEnds() throws Exception {
    cluster = EtcdCluster.start(1);
    Election a = candidate(etcds.client(cluster), "a");
    Election b = candidate(etcds.client(cluster), "b");
    a.start();
    b.start();
    await().atMost(WAIT).until(() -> a.isLeader() || b.isLeader());

    cluster.member(0).stop();
    // Long enough for gRPC's reconnect back-off to grow past the TTL, had it been left alone
    // (measured: a leader 15.9 s after etcd was back without the reset, 1.4 s with it).
    await()
        .pollDelay(Duration.ofSeconds(30))
        .atMost(Duration.ofSeconds(60))
        .until(() -> !a.isLeader() && !b.isLeader());
    cluster.member(0).start();
    long back = System.nanoTime();

    await().atMost(WAIT).until(() -> a.isLeader() || b.isLeader());
    // Issue 8: a leader again within TTL + 2 s of the fault's end.
    assertThat(Duration.ofNanos(System.nanoTime() - back)).isLessThan(TTL.plusSeconds(2));

    // Grants are tried all along the outage: the leases lost in it are revoked, and no grant made
    // while etcd was away arrives late. One lease per session (a's and b's) and no more.
    await().atMost(WAIT).until(() -> Etcds.leases(cluster) == 2);
    // and they stay two: a grant queued in a client would arrive within these 2 s
    await()
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(5))
        .until(() -> Etcds.leases(cluster) == 2);
  }

  @Test
  void pausedEtcdDropsLeadershipAndItComesBackAfterResume() throws Exception {
    cluster = EtcdCluster.start(1);
    Election a = candidate(etcds.client(cluster), "a");
    EventLog aLog = EventLog.of(a);
    a.start();
    assertThat(a.awaitLeadership(WAIT)).isTrue();
    long first = a.token().orElseThrow();

    cluster.member(0).pause();
    await().atMost(WAIT).until(() -> !aLog.events(ElectionEvent.Lost.class).isEmpty());
    assertThat(a.isLeader()).isFalse();
    cluster.member(0).resume();

    await().atMost(WAIT).until(() -> a.token().orElse(0) > first);
  }

  @Test
  void electionRecoversAfterAnEtcdRestart() throws Exception {
    cluster = EtcdCluster.start(1);
    Election a = candidate(etcds.client(cluster), "a");
    Election b = candidate(etcds.client(cluster), "b");
    a.start();
    assertThat(a.awaitLeadership(WAIT)).isTrue();
    b.start();
    await().atMost(WAIT).until(() -> b.state() == State.FOLLOWING);
    long first = a.token().orElseThrow();

    cluster.member(0).stop();
    await().atMost(WAIT).until(() -> !a.isLeader());
    cluster.member(0).start();

    await().atMost(WAIT).until(() -> a.isLeader() || b.isLeader());
    Election leader = a.isLeader() ? a : b;
    Election other = leader == a ? b : a;
    assertThat(leader.token().orElseThrow()).isGreaterThan(first);
    await().atMost(WAIT).until(() -> other.state() == State.FOLLOWING);
    // No stale key: the leader etcd names is the one that believes it leads, and only the two
    // live candidates have keys.
    assertThat(leader.leader().orElseThrow().rev()).isEqualTo(leader.token().orElseThrow());
    await().atMost(WAIT).until(() -> Etcds.candidateKeys(cluster, "jobs") == 2);
  }
}
