package dev.conch.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionEvent;
import dev.conch.ElectionOptions;
import dev.conch.EventLog;
import dev.conch.LossReason;
import dev.conch.test.EtcdCluster;
import dev.conch.test.Etcdctl;
import dev.conch.test.TcpProxy;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Both halves of the promise against real etcd: a leader keeps leading through the ordinary hiccups
 * of a cluster (a paused member, a lost raft leader, a member its client cannot reach), and never
 * misses that its key is gone (a stalled watch, a watch broken after compaction). Each test has a
 * cluster of its own, since each breaks it.
 */
@Timeout(180)
class EtcdSteadinessTest {

  private static final Duration WAIT = Duration.ofSeconds(30);

  /** `conch elect`'s defaults: TTL 10 s, kill-after 5 s (+ 500 ms slack), margin 500 ms. */
  private static final SessionOptions CLI_SESSION =
      SessionOptions.defaults().withTtl(Duration.ofSeconds(10)).withTimeout(Duration.ofSeconds(3));

  private static final ElectionOptions CLI_ELECTION =
      ElectionOptions.builder("jobs").stopTimeout(Duration.ofMillis(5500)).build();

  private final Etcds etcds = new Etcds();
  private final List<TcpProxy> proxies = new ArrayList<>();
  private EtcdCluster cluster;

  @AfterEach
  void close() {
    etcds.close();
    proxies.forEach(TcpProxy::close);
    if (cluster != null) {
      cluster.close();
    }
  }

  /** A client that reaches every member through a proxy of its own. */
  private Client proxiedClient() {
    List<String> endpoints = new ArrayList<>();
    for (int i = 0; i < cluster.members().size(); i++) {
      TcpProxy proxy = TcpProxy.start("127.0.0.1", cluster.member(i).clientPort());
      proxies.add(proxy);
      endpoints.add(proxy.endpoint());
    }
    return etcds.client(String.join(",", endpoints));
  }

  @Test
  void leaderKeepsLeadingThroughTwoSecondPausesOfItsOnlyEtcdMember() throws Exception {
    cluster = EtcdCluster.start(1);
    Election leader = etcds.session(etcds.client(cluster), CLI_SESSION).election(CLI_ELECTION);
    EventLog log = EventLog.of(leader);
    leader.start();
    assertThat(leader.awaitLeadership(WAIT)).isTrue();
    long token = leader.token().orElseThrow();

    for (int round = 0; round < 4; round++) {
      cluster.member(0).pause();
      TimeUnit.MILLISECONDS.sleep(2000); // the fault itself: etcd frozen for 2 s
      cluster.member(0).resume();
      TimeUnit.MILLISECONDS.sleep(700 + 300L * round); // a different phase of the renewal each time
    }

    assertThat(log.events(ElectionEvent.Lost.class)).isEmpty();
    assertThat(leader.isLeader()).isTrue();
    assertThat(leader.token()).hasValue(token);
  }

  @Test
  void leaderKeepsLeadingThroughTheLossOfTheRaftLeaderOfThreeMembers() throws Exception {
    cluster = EtcdCluster.start(3);
    Election leader = etcds.session(etcds.client(cluster), CLI_SESSION).election(CLI_ELECTION);
    EventLog log = EventLog.of(leader);
    leader.start();
    assertThat(leader.awaitLeadership(WAIT)).isTrue();
    long token = leader.token().orElseThrow();

    for (int round = 0; round < 2; round++) {
      int raftLeader = cluster.leaderIndex();
      cluster.member(raftLeader).kill();
      await().atMost(WAIT).until(() -> cluster.leaderIndex() >= 0);
      cluster.member(raftLeader).start();
      cluster.awaitHealthy(WAIT);
    }

    assertThat(log.events(ElectionEvent.Lost.class)).isEmpty();
    assertThat(leader.token()).hasValue(token);
    assertThat(leader.isLeader()).isTrue();
  }

  @Test
  void deletedKeyIsALossWithinOneRenewIntervalWhenTheWatchCannotDeliver() throws Exception {
    cluster = EtcdCluster.start(3);
    SessionOptions options =
        SessionOptions.defaults().withTtl(Duration.ofSeconds(4)).withTimeout(Duration.ofSeconds(2));
    EtcdSession session = etcds.session(proxiedClient(), options);
    Election leader = session.election(ElectionOptions.forOffice("jobs"));
    EventLog log = EventLog.of(leader);
    leader.start();
    RenewalBudget budget = session.renewalBudget();
    // One renewal round, plus a retry of each of its two requests after the stalled member.
    Duration bound = budget.interval().plus(budget.attemptTimeout().multipliedBy(4)).plusSeconds(1);

    // The own-key watch runs on one of the three connections: stall each in turn.
    for (int stalled = 0; stalled < 3; stalled++) {
      assertThat(leader.awaitLeadership(WAIT)).isTrue();
      long token = leader.token().orElseThrow();
      String key = "/conch/v1/elect/jobs/" + Long.toHexString(session.leaseId());
      proxies.get(stalled).blackhole();

      Etcdctl.Result deleted = Etcdctl.run(cluster.endpoints(), WAIT, "del", key);
      assertThat(deleted.stdout()).as(deleted.stderr()).startsWith("1");
      long deletedAt = System.nanoTime();

      await()
          .atMost(bound)
          .until(
              () ->
                  log.events(ElectionEvent.Lost.class).stream()
                      .anyMatch(lost -> lost.token() == token));
      assertThat(System.nanoTime() - deletedAt).isLessThan(bound.toNanos());
      assertThat(log.events(ElectionEvent.Lost.class))
          .filteredOn(lost -> lost.token() == token)
          .extracting(ElectionEvent.Lost::reason)
          .containsExactly(LossReason.KEY_DELETED);
      proxies.get(stalled).restore();
    }
  }

  @Test
  void watchBrokenAfterCompactionLeavesExactlyOneWatcherThatStillSeesADeletion() throws Exception {
    cluster = EtcdCluster.start(1);
    TcpProxy proxy = TcpProxy.start("127.0.0.1", cluster.member(0).clientPort());
    proxies.add(proxy);
    Client client = etcds.client(proxy.endpoint());
    EtcdSession session =
        etcds.session(
            client,
            SessionOptions.defaults()
                .withTtl(Duration.ofSeconds(4))
                .withTimeout(Duration.ofSeconds(2)));
    Election leader = session.election(ElectionOptions.forOffice("jobs"));
    EventLog log = EventLog.of(leader);
    leader.start();
    assertThat(leader.awaitLeadership(WAIT)).isTrue();
    long token = leader.token().orElseThrow();

    // Held longer than a compaction: the revision the term's watch started from is gone.
    Client other = etcds.client(cluster);
    ByteSequence filler = ByteSequence.from("/filler", StandardCharsets.UTF_8);
    for (int i = 0; i < 20; i++) {
      other.getKVClient().put(filler, ByteSequence.from("" + i, StandardCharsets.UTF_8)).get();
    }
    long now = other.getKVClient().get(filler).get().getHeader().getRevision();
    assertThat(Etcdctl.run(cluster.endpoints(), WAIT, "compact", Long.toString(now)).succeeded())
        .isTrue();

    // A watch error: every connection of the leader's client is reset.
    for (int i = 0; i < 3; i++) {
      proxy.dropConnections();
      TimeUnit.MILLISECONDS.sleep(300); // the fault: a few resets in a row
    }

    // Several renewal rounds later there is exactly one watcher on the key, and it works.
    Duration settle = session.renewalBudget().interval().multipliedBy(4);
    TimeUnit.NANOSECONDS.sleep(settle.toNanos()); // letting rounds pass is what is tested here
    await().atMost(WAIT).until(() -> watchers(cluster) == 1);
    assertThat(leader.isLeader()).isTrue();
    assertThat(leader.token()).hasValue(token);

    String key = "/conch/v1/elect/jobs/" + Long.toHexString(session.leaseId());
    assertThat(Etcdctl.run(cluster.endpoints(), WAIT, "del", key).stdout()).startsWith("1");
    await()
        .atMost(WAIT)
        .until(
            () ->
                log.events(ElectionEvent.Lost.class).stream()
                    .anyMatch(
                        lost -> lost.token() == token && lost.reason() == LossReason.KEY_DELETED));
  }

  @Test
  void secondElectionForAnOfficeOnOneSessionIsRefusedUntilTheFirstIsClosed() {
    EtcdSession session = EtcdSession.open(null, SessionOptions.defaults());
    Election first = session.election(ElectionOptions.forOffice("jobs"));

    assertThatThrownBy(() -> session.election(ElectionOptions.forOffice("jobs")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("office 'jobs' already has an election on this session");
    first.close();
    assertThat(session.election(ElectionOptions.forOffice("jobs"))).isNotSameAs(first);
  }

  /** How many watchers etcd itself counts (its metrics). */
  private static long watchers(EtcdCluster cluster) {
    return (long) cluster.member(0).metric("etcd_debugging_mvcc_watcher_total");
  }
}
