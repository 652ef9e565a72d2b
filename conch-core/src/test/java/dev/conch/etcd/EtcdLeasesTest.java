package dev.conch.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionEvent;
import dev.conch.ElectionOptions;
import dev.conch.test.EtcdCluster;
import dev.conch.test.Etcdctl;
import dev.conch.test.TcpProxy;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.LeaseOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A session spreads its offices over leases of at most {@code max-keys-per-lease} keys: each lease
 * carries at most that many, losing one ends only its offices, and it holds with etcd's
 * authentication on and a role limited to conch's keys, the case of etcd#15993.
 */
@Timeout(120)
class EtcdLeasesTest {

  private static final Duration WAIT = Duration.ofSeconds(60);

  /**
   * Offices with 1.3 s of a 2 s TTL to renew in (a stop timeout of 200 ms), not the default 0.5 s:
   * what the tests of the rounds' threads are about is those threads, not how a busy machine rides
   * out the start of many leases at once (which cost an office its term in 2 of 3 runs).
   */
  private static final Function<String, ElectionOptions> ROOM_TO_RENEW =
      office -> ElectionOptions.builder(office).stopTimeout(Duration.ofMillis(200)).build();

  private final Etcds etcds = new Etcds();
  private final List<EtcdCluster> clusters = new ArrayList<>();

  @AfterEach
  void close() {
    etcds.close();
    clusters.forEach(EtcdCluster::close);
  }

  @Test
  void officesBeyondTheLimitTakeAnotherLeaseAndLosingOneEndsOnlyItsOffices() throws Exception {
    EtcdCluster cluster = cluster();
    Client client = etcds.client(cluster);
    EtcdSession session = etcds.session(client, SessionOptions.defaults().withMaxKeysPerLease(10));
    Queue<String> lost = new ConcurrentLinkedQueue<>();
    List<Election> elections = start(session, "spread", 25, lost);
    await().atMost(WAIT).until(() -> elections.stream().allMatch(Election::isLeader));

    Map<Long, List<String>> keysOf = assertSpread(client, session, 10, 25);
    assertThat(lost).isEmpty();

    // Someone revokes the second lease: its offices lose and campaign again; no other one loses.
    long second = session.leaseIds().get(1);
    Set<String> onSecond =
        keysOf.get(second).stream()
            .map(key -> key.substring("/conch/v1/elect/".length(), key.lastIndexOf('/')))
            .collect(Collectors.toSet());
    client.getLeaseClient().revoke(second).get(5, TimeUnit.SECONDS);
    await().atMost(WAIT).until(() -> Set.copyOf(lost).equals(onSecond));
    await().atMost(WAIT).until(() -> elections.stream().allMatch(Election::isLeader));
    assertThat(Set.copyOf(lost)).isEqualTo(onSecond);
    assertThat(lost).hasSameSizeAs(onSecond); // each lost once
    assertThat(session.leaseIds()).doesNotContain(second).doesNotContain(0L).hasSize(3);
  }

  @Test
  void withAuthenticationOnAndARoleLimitedToConchsKeysEveryLeaseStaysSmall() throws Exception {
    EtcdCluster cluster = cluster();
    String endpoints = cluster.endpoints();
    for (String[] command :
        new String[][] {
          {"user", "add", "root", "--new-user-password=secret"},
          {"user", "grant-role", "root", "root"},
          {"role", "add", "conch"},
          {"role", "grant-permission", "conch", "--prefix=true", "readwrite", "/conch/"},
          {"user", "add", "app", "--new-user-password=app-secret"},
          {"user", "grant-role", "app", "conch"},
          {"auth", "enable"}
        }) {
      Etcdctl.Result result = Etcdctl.run(endpoints, Duration.ofSeconds(20), command);
      assertThat(result.succeeded())
          .as(String.join(" ", command) + ": " + result.stderr())
          .isTrue();
    }
    Client client =
        EtcdClients.withCredentials(
                EtcdClients.builder(EtcdClients.parseEndpoints(endpoints), Duration.ofSeconds(5)),
                "app",
                "app-secret")
            .build();
    etcds.track(client);
    EtcdSession session = etcds.session(client, SessionOptions.defaults());
    Queue<String> lost = new ConcurrentLinkedQueue<>();
    List<Election> elections = start(session, "auth", 2500, lost);
    await().atMost(WAIT).until(() -> elections.stream().allMatch(Election::isLeader));

    assertSpread(client, session, 1000, 2500);
    assertThat(lost).isEmpty();
    assertThat(session.renewalFailures()).isZero();
  }

  @Test
  void everyLeaseOfTheProcessIsRenewedOnTheSameFewThreads() throws Exception {
    EtcdCluster cluster = cluster();
    EtcdSession session =
        etcds.session(
            etcds.client(cluster),
            SessionOptions.defaults().withTtl(Duration.ofSeconds(2)).withMaxKeysPerLease(1));
    Queue<String> lost = new ConcurrentLinkedQueue<>();
    List<Election> elections = start(session, "flat", 20, lost, ROOM_TO_RENEW);
    await().atMost(WAIT).until(() -> elections.stream().allMatch(Election::isLeader));
    int lostBefore = lost.size();
    List<Long> leases = session.leaseIds();
    assertThat(Set.copyOf(leases)).hasSize(20).doesNotContain(0L);

    // Three TTLs: a lease not renewed in time would have ended its office's term by then.
    int[] most = {0};
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(6);
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              most[0] = Math.max(most[0], threadsNamed("conch-lease-"));
              return System.nanoTime() - until > 0;
            });
    assertThat(lost).hasSize(lostBefore);
    assertThat(elections).allMatch(Election::isLeader);
    assertThat(session.leaseIds()).isEqualTo(leases);
    // Two shared threads and any lent beside a round that a pause held up: not one per lease (20).
    assertThat(most[0]).isBetween(1, 5);
  }

  @Test
  void leasesWhoseEtcdIsAwayDoNotHoldUpTheRenewalsOfAnother() throws Exception {
    EtcdCluster cluster = cluster();
    SessionOptions options = SessionOptions.defaults().withTtl(Duration.ofSeconds(2));
    try (TcpProxy proxy = TcpProxy.start("127.0.0.1", cluster.member(0).clientPort())) {
      // More sessions behind the proxy than the rounds have threads of their own.
      List<Election> away = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        EtcdSession session = etcds.session(etcds.client(proxy.endpoint()), options);
        Election election = session.election(ElectionOptions.forOffice("away-" + i));
        election.start();
        away.add(election);
      }
      EtcdSession near = etcds.session(etcds.client(cluster), options);
      Queue<String> lost = new ConcurrentLinkedQueue<>();
      Election held = start(near, "near", 1, lost, ROOM_TO_RENEW).get(0);
      await()
          .atMost(WAIT)
          .until(() -> away.stream().allMatch(Election::isLeader) && held.isLeader());

      // Their rounds now wait for answers that never come, one after another, for good.
      int lostBefore = lost.size();
      proxy.blackhole();
      await().atMost(WAIT).until(() -> away.stream().noneMatch(Election::isLeader));
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(6);
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () -> {
                assertThat(lost).hasSize(lostBefore);
                return System.nanoTime() - until > 0;
              });
      assertThat(held.isLeader()).isTrue();
    }
  }

  private static int threadsNamed(String prefix) {
    return (int)
        Thread.getAllStackTraces().keySet().stream()
            .filter(thread -> thread.getName().startsWith(prefix))
            .count();
  }

  private static List<Election> start(
      EtcdSession session, String prefix, int offices, Queue<String> lost) {
    return start(session, prefix, offices, lost, ElectionOptions::forOffice);
  }

  private static List<Election> start(
      EtcdSession session,
      String prefix,
      int offices,
      Queue<String> lost,
      Function<String, ElectionOptions> options) {
    List<Election> elections = new ArrayList<>();
    for (int i = 0; i < offices; i++) {
      String office = prefix + "-" + i;
      Election election = session.election(options.apply(office));
      election.addListener(
          event -> {
            if (event instanceof ElectionEvent.Lost) {
              lost.add(office);
            }
          });
      election.start();
      elections.add(election);
    }
    return elections;
  }

  /**
   * Asserts that the session's {@code offices} keys lie on three leases of at most {@code perLease}
   * keys each, by etcd's count; returns each lease's keys.
   */
  private static Map<Long, List<String>> assertSpread(
      Client client, EtcdSession session, int perLease, int offices) throws Exception {
    Map<Long, List<String>> keysOf = keysByLease(client, session.leaseIds());
    assertThat(keysOf).hasSize(3);
    assertThat(keysOf.values())
        .allSatisfy(keys -> assertThat(keys).hasSizeLessThanOrEqualTo(perLease));
    assertThat(keysOf.values().stream().mapToInt(List::size).sum()).isEqualTo(offices);
    return keysOf;
  }

  /** Each lease's keys, as etcd says (its time-to-live with the keys attached). */
  private static Map<Long, List<String>> keysByLease(Client client, List<Long> leases)
      throws Exception {
    Map<Long, List<String>> keys = new HashMap<>();
    for (long lease : leases) {
      keys.put(
          lease,
          client
              .getLeaseClient()
              .timeToLive(lease, LeaseOption.builder().withAttachedKeys().build())
              .get(5, TimeUnit.SECONDS)
              .getKeys()
              .stream()
              .map(key -> key.toString(StandardCharsets.UTF_8))
              .toList());
    }
    return keys;
  }

  private EtcdCluster cluster() {
    EtcdCluster cluster = EtcdCluster.start(1);
    clusters.add(cluster);
    return cluster;
  }
}
