package dev.conch.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionEvent;
import dev.conch.ElectionOptions;
import dev.conch.EventLog;
import dev.conch.FencedLock;
import dev.conch.Holder;
import dev.conch.Leadership;
import dev.conch.LeadershipHandler;
import dev.conch.LossReason;
import dev.conch.State;
import dev.conch.test.EtcdExtension;
import dev.conch.test.Etcdctl;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The etcd election against one real etcd member: layout, hand-over, herd, interop, loss. */
class EtcdElectionTest {

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private static final AtomicInteger offices = new AtomicInteger();
  private static final Duration WAIT = Duration.ofSeconds(20);

  private final Etcds etcds = new Etcds();

  @AfterEach
  void close() {
    etcds.close();
  }

  private static String office() {
    return "office-" + offices.incrementAndGet() + "-" + System.nanoTime() % 100000;
  }

  private Election candidate(Client client, Duration ttl, String office, String id) {
    EtcdSession session =
        etcds.session(
            client, SessionOptions.defaults().withTtl(ttl).withTimeout(Duration.ofSeconds(2)));
    return session.election(ElectionOptions.builder(office).candidateId(id).build());
  }

  @Test
  void keyAndValueAreThoseOfEtcdctlElect() throws Exception {
    Client client = etcds.client(etcd.cluster());
    String office = office();
    Election a = candidate(client, Duration.ofSeconds(10), office, "a");
    a.start();
    assertThat(a.awaitLeadership(WAIT)).isTrue();

    GetResponse keys =
        client
            .getKVClient()
            .get(
                EtcdCalls.bytes("/conch/v1/elect/" + office + "/"),
                GetOption.builder().isPrefix(true).build())
            .get(5, TimeUnit.SECONDS);

    assertThat(keys.getKvs()).hasSize(1);
    var kv = keys.getKvs().get(0);
    long lease = a.leadership().orElseThrow().lease();
    assertThat(kv.getKey().toString(StandardCharsets.UTF_8))
        .isEqualTo("/conch/v1/elect/" + office + "/" + Long.toHexString(lease));
    assertThat(kv.getLease()).isEqualTo(lease);
    assertThat(kv.getCreateRevision()).isEqualTo(a.token().orElseThrow());
    String value = kv.getValue().toString(StandardCharsets.UTF_8);
    assertThat(value)
        .startsWith("{\"office\":\"" + office + "\",\"host\":")
        .contains("\"pid\":" + ProcessHandle.current().pid(), "\"since\":\"", "\"id\":\"a\"")
        .doesNotContain("\"rev\"");
  }

  @Test
  void followerLeadsOnResignWithoutWaitingForTheTtl() throws Exception {
    Client client = etcds.client(etcd.cluster());
    String office = office();
    // A 30 s TTL: a hand-over that waited for the lease would take 30 s, not the few ms of a
    // resign.
    Election a = candidate(client, Duration.ofSeconds(30), office, "a");
    Election b = candidate(client, Duration.ofSeconds(30), office, "b");
    a.start();
    assertThat(a.awaitLeadership(WAIT)).isTrue();
    b.start();
    await().atMost(WAIT).until(() -> b.state() == State.FOLLOWING);

    a.resign();

    assertThat(b.awaitLeadership(Duration.ofSeconds(10))).isTrue();
  }

  @Test
  void etcdctlElectHolderMakesConchWaitAndConchLeadsWhenItResigns() throws Exception {
    Client client = etcds.client(etcd.cluster());
    String office = office();
    try (Etcdctl.Background etcdctl =
        Etcdctl.start(
            etcd.cluster().endpoints(), "elect", "/conch/v1/elect/" + office, "etcdctl-proposal")) {
      etcdctl.awaitLine(line -> line.contains("etcdctl-proposal"), WAIT);
      Election a = candidate(client, Duration.ofSeconds(10), office, "a");
      a.start();
      await().atMost(WAIT).until(() -> a.state() == State.FOLLOWING);
      Holder leader = a.leader().orElseThrow();
      assertThat(leader.isConch()).isFalse();
      assertThat(leader.raw()).isEqualTo("etcdctl-proposal");
      assertThat(a.isLeader()).isFalse();

      etcdctl.interrupt();

      assertThat(a.awaitLeadership(WAIT)).isTrue();
      assertThat(a.token().orElseThrow()).isGreaterThan(leader.rev());
    }
  }

  @Test
  void etcdctlObserverPrintsConchsHolderAndEtcdctlCandidateWaitsBehindConch() throws Exception {
    Client client = etcds.client(etcd.cluster());
    String office = office();
    Election a = candidate(client, Duration.ofSeconds(10), office, "conch-a");
    a.start();
    assertThat(a.awaitLeadership(WAIT)).isTrue();

    try (Etcdctl.Background observer =
            Etcdctl.start(etcd.cluster().endpoints(), "elect", "-l", "/conch/v1/elect/" + office);
        Etcdctl.Background candidate =
            Etcdctl.start(
                etcd.cluster().endpoints(), "elect", "/conch/v1/elect/" + office, "next")) {
      observer.awaitLine(line -> line.contains("\"id\":\"conch-a\""), WAIT);
      await().atMost(WAIT).until(() -> a.leader().isPresent());
      assertThat(candidate.lines()).noneMatch(line -> line.contains("next"));

      a.resign();

      candidate.awaitLine(line -> line.contains("next"), WAIT);
      observer.awaitLine(line -> line.equals("next"), WAIT);
    }
  }

  @Test
  void aLeaderChangeWakesOnlyTheNextCandidate() throws Exception {
    Client client = etcds.client(etcd.cluster());
    String office = office();
    List<EtcdSession> sessions = new ArrayList<>();
    List<Election> candidates = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      EtcdSession session =
          etcds.session(client, SessionOptions.defaults().withTtl(Duration.ofSeconds(30)));
      sessions.add(session);
      Election e = session.election(ElectionOptions.builder(office).candidateId("c" + i).build());
      e.start();
      candidates.add(e);
      // One at a time, so that the queue order is the order of the list.
      await().atMost(WAIT).until(() -> e.state() == State.LEADING || e.state() == State.FOLLOWING);
    }
    assertThat(candidates.get(0).isLeader()).isTrue();
    long before = sessions.stream().mapToLong(EtcdSession::wakeups).sum();

    candidates.get(0).resign();

    assertThat(candidates.get(1).awaitLeadership(WAIT)).isTrue();
    // Whatever else might still wake, give it time to show: the count must stay at one.
    await()
        .during(Duration.ofMillis(500))
        .atMost(Duration.ofSeconds(3))
        .until(() -> sessions.stream().mapToLong(EtcdSession::wakeups).sum() == before + 1);
    assertThat(sessions.get(1).wakeups()).isEqualTo(1);
  }

  @Test
  void keyDeletedBySomeoneElseIsALossAndTheCandidateCampaignsAgain() throws Exception {
    Client client = etcds.client(etcd.cluster());
    String office = office();
    Election a = candidate(client, Duration.ofSeconds(10), office, "a");
    EventLog log = EventLog.of(a);
    a.start();
    assertThat(a.awaitLeadership(WAIT)).isTrue();
    long first = a.token().orElseThrow();

    Etcdctl.Result deleted =
        Etcdctl.run(
            etcd.cluster().endpoints(), WAIT, "del", "--prefix", "/conch/v1/elect/" + office + "/");
    assertThat(deleted.succeeded()).as(deleted.stderr()).isTrue();

    await().atMost(WAIT).until(() -> !log.events(ElectionEvent.Lost.class).isEmpty());
    assertThat(log.events(ElectionEvent.Lost.class).get(0).reason())
        .isEqualTo(LossReason.KEY_DELETED);
    assertThat(log.hooks()).startsWith("acquired", "lost:KEY_DELETED");
    await().atMost(WAIT).until(() -> a.token().orElse(0) > first);
  }

  @Test
  void crashedHolderIsSucceededWhenItsLeaseExpires() throws Exception {
    Client client = etcds.client(etcd.cluster());
    String office = office();
    // A real process holds the office: `etcdctl lock` shares the key layout (etcd's Mutex).
    Etcdctl.Background holder =
        Etcdctl.start(
            etcd.cluster().endpoints(), "lock", "--ttl", "3", "/conch/v1/elect/" + office);
    holder.awaitLine(line -> line.startsWith("/conch/v1/elect/" + office + "/"), WAIT);
    Election a = candidate(client, Duration.ofSeconds(10), office, "a");
    EventLog log = EventLog.of(a);
    a.start();
    await().atMost(WAIT).until(() -> a.state() == State.FOLLOWING);

    long killed = System.nanoTime();
    ProcessHandle.of(holder.pid()).ifPresent(ProcessHandle::destroyForcibly);

    assertThat(a.awaitLeadership(WAIT)).isTrue();
    // Not before the crashed holder's lease could have expired: its last renewal was at most
    // TTL/3 before the kill, so at least 2 s of its 3 s TTL were left.
    assertThat(log.firstNanos("acquired") - killed).isGreaterThan(Duration.ofSeconds(1).toNanos());
    holder.close();
  }

  @Test
  void campaignAgainOnTheSameLeaseNeverAdoptsTheOldKeyAndGetsANewToken() throws Exception {
    // A loss while etcd was away leaves the old key behind, its deletion still pending; the next
    // campaign on the same lease must not win with the old token (the pending deletion would end
    // that term as soon as etcd answers).
    EtcdSession session = etcds.session(etcds.client(etcd.cluster()), SessionOptions.defaults());
    EtcdOffice lock = new EtcdOffice(session, office());
    FencedLock.Grant first =
        lock.campaign(Holder.self(lock.office(), "a", null), l -> {}, () -> {})
            .get(10, TimeUnit.SECONDS);

    FencedLock.Grant second =
        lock.campaign(Holder.self(lock.office(), "a", null), l -> {}, () -> {})
            .get(10, TimeUnit.SECONDS);

    assertThat(second.leadership().lease()).isEqualTo(first.leadership().lease());
    assertThat(second.leadership().token()).isGreaterThan(first.leadership().token());
    assertThat(lock.leader().orElseThrow().rev()).isEqualTo(second.leadership().token());
    lock.release(first)
        .get(10, TimeUnit.SECONDS); // the old term's pending release must not touch the new key
    assertThat(lock.leader().orElseThrow().rev()).isEqualTo(second.leadership().token());
    lock.release(second).get(10, TimeUnit.SECONDS);
  }

  @Test
  void officesOfOneSessionShareOneLease() throws Exception {
    Client client = etcds.client(etcd.cluster());
    EtcdSession session = etcds.session(client, SessionOptions.defaults());
    Election billing = session.election(ElectionOptions.forOffice(office()));
    Election reports = session.election(ElectionOptions.forOffice(office()));
    billing.start();
    reports.start();

    assertThat(billing.awaitLeadership(WAIT)).isTrue();
    assertThat(reports.awaitLeadership(WAIT)).isTrue();
    assertThat(billing.leadership().orElseThrow().lease())
        .isEqualTo(reports.leadership().orElseThrow().lease())
        .isEqualTo(session.leaseId());
  }

  @Test
  void closingTheSessionRevokesItsLeaseSoFollowersLeadAtOnce() throws Exception {
    Client client = etcds.client(etcd.cluster());
    String office = office();
    EtcdSession first =
        EtcdSession.open(client, SessionOptions.defaults().withTtl(Duration.ofSeconds(30)));
    Election a = first.election(ElectionOptions.builder(office).candidateId("a").build());
    a.start();
    assertThat(a.awaitLeadership(WAIT)).isTrue();
    Election b = candidate(client, Duration.ofSeconds(30), office, "b");
    b.start();
    await().atMost(WAIT).until(() -> b.state() == State.FOLLOWING);

    first.close();

    assertThat(a.state()).isEqualTo(State.CLOSED);
    assertThat(b.awaitLeadership(Duration.ofSeconds(10))).isTrue();
  }

  @Test
  void closingASessionEndsItsOfficesTogetherAsClosed() throws Exception {
    Client client = etcds.client(etcd.cluster());
    EtcdSession session =
        EtcdSession.open(client, SessionOptions.defaults().withTtl(Duration.ofSeconds(30)));
    int count = 4;
    // Each lose hook waits for the others': offices closed one after another would each wait
    // in vain (and the close would take count times as long as one lose hook).
    CountDownLatch losing = new CountDownLatch(count);
    List<LossReason> together = new CopyOnWriteArrayList<>();
    List<Election> elections = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Election election =
          session.election(ElectionOptions.builder(office()).candidateId("a").build());
      election.addHandler(
          new LeadershipHandler() {
            @Override
            public void lost(Leadership leadership, LossReason reason) throws Exception {
              losing.countDown();
              if (losing.await(5, TimeUnit.SECONDS)) {
                together.add(reason);
              }
            }
          });
      election.start();
      elections.add(election);
    }
    for (Election election : elections) {
      assertThat(election.awaitLeadership(WAIT)).isTrue();
    }

    session.close();

    assertThat(together).hasSize(count).containsOnly(LossReason.CLOSED);
    assertThat(elections).allMatch(election -> election.state() == State.CLOSED);
  }
}
