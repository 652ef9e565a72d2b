package dev.conch.etcd;

import static dev.conch.etcd.EtcdCalls.bytes;
import static dev.conch.etcd.EtcdCalls.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.EtcdUnavailableException;
import dev.conch.Gate;
import dev.conch.GroupOptions;
import dev.conch.InvalidArgumentException;
import dev.conch.Leadership;
import dev.conch.LeadershipHandler;
import dev.conch.LossReason;
import dev.conch.OfficeGroup;
import dev.conch.OfficeGroup.Member;
import dev.conch.test.EtcdExtension;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * A group's membership on a real etcd: one key per member on its lease under the meta root, one
 * watch per member whatever the number of offices, and nothing asked of etcd while nothing changes;
 * a second process with the same id is refused, a move does not stop the member publishing, only a
 * hand-over that happened is told, and the group's thread outlives an {@link Error}.
 */
@Timeout(120)
class EtcdOfficeGroupTest {

  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final AtomicInteger GROUPS = new AtomicInteger();

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private final Etcds etcds = new Etcds();

  @AfterEach
  void close() {
    etcds.close();
  }

  private static String group() {
    return "members" + GROUPS.incrementAndGet();
  }

  @Test
  void eachMemberSeesEveryMemberWithItsPriorityAndHowManyOfficesItLeads() throws Exception {
    Client client = etcds.client(etcd.cluster());
    String group = group();
    GroupMembers members = new GroupMembers(etcds, client, group, 3);
    GroupMembers.Member a = members.start("a", 1, Duration.ZERO, () -> true);
    await().atMost(WAIT).until(() -> a.leads() == 3);
    // b is of lower priority and cannot take anything: nothing moves, both are shown.
    GroupMembers.Member b = members.start("b", 0, Duration.ZERO, () -> true);

    List<Member> expected = List.of(new Member("a", 1, 3, false), new Member("b", 0, 0, false));
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(a.group.members()).containsExactly(self(expected, "a"));
              assertThat(b.group.members()).containsExactly(self(expected, "b"));
            });

    // The key is under the meta root, out of every election's prefix, on the session's lease.
    KeyValue key =
        client
            .getKVClient()
            .get(bytes("/conch/v1/meta/groups/" + group + "/members/a"))
            .get(5, TimeUnit.SECONDS)
            .getKvs()
            .get(0);
    assertThat(key.getLease()).isEqualTo(a.session.leaseId());
    assertThat(text(key.getValue()))
        .isEqualTo("{\"id\":\"a\",\"priority\":1,\"leads\":3,\"receiving\":true}");
  }

  private static Member[] self(List<Member> members, String id) {
    return members.stream()
        .map(m -> new Member(m.id(), m.priority(), m.leads(), m.id().equals(id)))
        .toArray(Member[]::new);
  }

  @Test
  void theMemberKeyFollowsTheSessionToANewLease() throws Exception {
    Client client = etcds.client(etcd.cluster());
    String group = group();
    GroupMembers members = new GroupMembers(etcds, client, group, 2);
    GroupMembers.Member a = members.start("a");
    await().atMost(WAIT).until(() -> a.leads() == 2);
    String key = "/conch/v1/meta/groups/" + group + "/members/a";
    await().atMost(WAIT).until(() -> leaseOf(client, key) == a.session.leaseId());
    long first = a.session.leaseId();

    // etcd forgets the lease (an expiry, an operator's revoke): the key goes with it.
    client.getLeaseClient().revoke(first).get(5, TimeUnit.SECONDS);

    await()
        .atMost(WAIT)
        .until(() -> a.session.leaseId() != first && a.session.leaseId() != 0 && a.leads() == 2);
    await().atMost(WAIT).until(() -> leaseOf(client, key) == a.session.leaseId());
  }

  private static long leaseOf(Client client, String key) throws Exception {
    List<KeyValue> kvs = client.getKVClient().get(bytes(key)).get(5, TimeUnit.SECONDS).getKvs();
    return kvs.isEmpty() ? -1 : kvs.get(0).getLease();
  }

  @Test
  void aClosedMemberLeavesTheGroupAndItsKeyIsGone() throws Exception {
    Client client = etcds.client(etcd.cluster());
    String group = group();
    GroupMembers members = new GroupMembers(etcds, client, group, 1);
    GroupMembers.Member a = members.start("a");
    GroupMembers.Member b = members.start("b");
    await().atMost(WAIT).until(() -> a.group.members().size() == 2);

    b.group.close();

    await()
        .atMost(WAIT)
        .until(() -> a.group.members().stream().map(Member::id).toList(), List.of("a")::equals);
    assertThat(
            client
                .getKVClient()
                .get(
                    bytes("/conch/v1/meta/groups/" + group + "/members/"),
                    GetOption.builder().isPrefix(true).build())
                .get(5, TimeUnit.SECONDS)
                .getKvs())
        .hasSize(1);
  }

  @Test
  void aGroupOfTwelveOfficesHasOneWatchAndAsksNothingOfEtcdWhileIdle() throws Exception {
    Client client = etcds.client(etcd.cluster());
    EtcdSession session = etcds.session(client, SessionOptions.defaults());
    String group = group();
    List<Election> elections =
        java.util.stream.IntStream.range(0, 12)
            .mapToObj(
                i ->
                    session.election(
                        ElectionOptions.builder(group + "-" + i).candidateId("solo").build()))
            .toList();
    elections.forEach(Election::start);
    await().atMost(WAIT).until(() -> elections.stream().allMatch(Election::isLeader));
    long watchersBefore = watchers();

    EtcdOfficeGroup officeGroup =
        (EtcdOfficeGroup)
            session.group(
                GroupOptions.builder(group).candidateId("solo").delay(GroupMembers.DELAY).build());
    elections.forEach(officeGroup::add);
    await()
        .atMost(WAIT)
        .until(
            () -> officeGroup.members(), m -> List.of(new Member("solo", 0, 12, true)).equals(m));

    assertThat(watchers() - watchersBefore).isEqualTo(1);
    // Several renewal rounds of the lease and ticks of the group: not one request of the group
    // (its belt read comes every 30 s), however many offices it holds.
    long before = officeGroup.requests();
    await()
        .during(Duration.ofSeconds(4))
        .atMost(WAIT)
        .until(officeGroup::requests, n -> n == before);
    assertThat(watchers() - watchersBefore).isEqualTo(1);
  }

  private static long watchers() {
    return (long) etcd.cluster().member(0).metric("etcd_debugging_mvcc_watcher_total");
  }

  @Test
  void badInputIsRefusedNamingTheValue() {
    assertThatThrownBy(() -> GroupOptions.builder("jobs").delay(Duration.ofMillis(-1)).build())
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("balance-delay")
        .hasMessageContaining("-1ms")
        .hasMessageContaining("0 or more");
    assertThatThrownBy(() -> GroupOptions.builder("jobs").minTenure(Duration.ofSeconds(-2)).build())
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("min-tenure")
        .hasMessageContaining("-2s");
    assertThatThrownBy(() -> GroupOptions.forGroup("a/b"))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("invalid group 'a/b'")
        .hasMessageContaining("without '/'");
    assertThatThrownBy(() -> GroupOptions.forGroup(""))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("invalid group ''");
  }

  @Test
  void aMemberGoesOnPublishingWhileAMoveWaitsForASlowLoseHook() throws Exception {
    Client client = etcds.client(etcd.cluster());
    String group = group();
    GroupMembers members = new GroupMembers(etcds, client, group, 3);
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicBoolean first = new AtomicBoolean(true);
    LeadershipHandler slowHandOver =
        new LeadershipHandler() {
          @Override
          public void lost(Leadership leadership, LossReason reason) throws Exception {
            if (reason == LossReason.TRANSFERRED && first.getAndSet(false)) {
              entered.countDown();
              release.await(10, TimeUnit.SECONDS); // the office's work takes its time to stop
            }
          }
        };
    GroupMembers.Member a =
        members.start(
            "a",
            0,
            Duration.ZERO,
            () -> true,
            Gate.OPEN,
            election -> {
              election.addHandler(slowHandOver);
              return election;
            });
    await().atMost(WAIT).until(() -> a.leads() == 3);
    GroupMembers.Member b = members.start("b");
    assertThat(entered.await(20, TimeUnit.SECONDS)).isTrue();

    // While the hand-over's lose hook runs, a gives up another office: its count goes out.
    Election other = a.elections.stream().filter(Election::isLeader).findFirst().orElseThrow();
    other.resign();
    // The office under way still counts as a's: 1 led + 1 being handed over.
    await().atMost(WAIT).until(() -> b.sees("a").map(Member::leads).orElse(-1) == 2);
    assertThat(release.getCount()).isEqualTo(1);
    assertThat(a.moves).isEmpty();

    release.countDown();
    await().atMost(WAIT).until(() -> b.leads() == 2);
    await().atMost(WAIT).until(() -> a.moves.size() == 1);
    assertThat(a.moves.peek().to()).isEqualTo("b");
    // The office's history says how the term ended, and why.
    String moved = a.moves.peek().office();
    Election mover =
        a.elections.stream().filter(e -> e.office().equals(moved)).findFirst().orElseThrow();
    assertThat(mover.history(10))
        .anySatisfy(
            term -> {
              assertThat(term.holder().id()).isEqualTo("a");
              assertThat(term.reason()).isEqualTo(LossReason.TRANSFERRED);
              assertThat(term.detail())
                  .isEqualTo(
                      "handed to 'b': group '"
                          + group
                          + "' moved it: this member led more than its fair share");
            });
  }

  @Test
  void aTransferThatFailsOrATermLostDuringTheMoveIsNotAMove() throws Exception {
    Client client = etcds.client(etcd.cluster());
    GroupMembers members = new GroupMembers(etcds, client, group(), 2);
    AtomicInteger attempts = new AtomicInteger();
    AtomicBoolean failing = new AtomicBoolean(true);
    // While failing, a named transfer (transfer or transferToFirst) throws as when etcd does not
    // answer; then a's key is deleted
    // while the hand-over's lose hooks run: the term is lost (b leads next all the same).
    UnaryOperator<Election> flaky =
        real -> {
          real.addHandler(
              new LeadershipHandler() {
                @Override
                public void lost(Leadership leadership, LossReason reason) throws Exception {
                  if (reason == LossReason.TRANSFERRED) {
                    deleteKey(client, leadership);
                    // Stopping until told that a successor may lead (the key is gone): interrupted.
                    new CountDownLatch(1).await(10, TimeUnit.SECONDS);
                  }
                }
              });
          return (Election)
              Proxy.newProxyInstance(
                  Election.class.getClassLoader(),
                  new Class<?>[] {Election.class},
                  (proxy, method, args) -> {
                    if (method.getName().startsWith("transfer") && args != null) {
                      attempts.incrementAndGet();
                      if (failing.get()) {
                        throw new EtcdUnavailableException("injected: etcd did not answer", null);
                      }
                    }
                    try {
                      return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                      throw e.getCause();
                    }
                  });
        };
    GroupMembers.Member a = members.start("a", 0, Duration.ZERO, () -> true, Gate.OPEN, flaky);
    await().atMost(WAIT).until(() -> a.leads() == 2);
    GroupMembers.Member b = members.start("b");

    // Tried, failed, tried again later: never told as a move.
    await().atMost(WAIT).until(() -> attempts.get() >= 2);
    assertThat(a.leads()).isEqualTo(2);
    assertThat(a.moves).isEmpty();

    failing.set(false);
    await().atMost(WAIT).until(() -> b.leads() == 1);
    await().during(Duration.ofSeconds(1)).atMost(WAIT).until(() -> a.moves.isEmpty());
    assertThat(a.leads()).isEqualTo(1);
  }

  /** Deletes the key of the term of {@code leadership} behind the election's back. */
  private static void deleteKey(Client client, Leadership leadership) throws Exception {
    String prefix = "/conch/v1/elect/" + leadership.office() + "/";
    for (KeyValue kv :
        client
            .getKVClient()
            .get(bytes(prefix), GetOption.builder().isPrefix(true).build())
            .get(5, TimeUnit.SECONDS)
            .getKvs()) {
      if (kv.getCreateRevision() == leadership.token()) {
        client.getKVClient().delete(kv.getKey()).get(5, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void aSecondProcessWithTheSameIdIsRefusedByNameAndLeavesTheKeyAlone() throws Exception {
    Client client = etcds.client(etcd.cluster());
    String group = group();
    String key = "/conch/v1/meta/groups/" + group + "/members/twin";
    EtcdSession one = etcds.session(client, SessionOptions.defaults());
    OfficeGroup first =
        one.group(
            GroupOptions.builder(group).candidateId("twin").delay(GroupMembers.DELAY).build());
    await().atMost(WAIT).until(() -> leaseOf(client, key) == one.leaseId());

    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    logged.start();
    Logger logger = (Logger) LoggerFactory.getLogger(OfficeGroup.class);
    logger.addAppender(logged);
    try {
      EtcdSession two = etcds.session(client, SessionOptions.defaults());
      OfficeGroup second =
          two.group(
              GroupOptions.builder(group).candidateId("twin").delay(GroupMembers.DELAY).build());
      await()
          .atMost(WAIT)
          .until(
              () ->
                  snapshot(logged).stream()
                      .anyMatch(
                          e ->
                              e.getLevel() == Level.ERROR
                                  && e.getFormattedMessage().contains("member id 'twin'")
                                  && e.getFormattedMessage().contains("group '" + group + "'")));
      assertThat(leaseOf(client, key)).isEqualTo(one.leaseId());

      // The second one leaving does not take the first one's key with it.
      second.close();
      assertThat(leaseOf(client, key)).isEqualTo(one.leaseId());
    } finally {
      logger.detachAppender(logged);
    }
    first.close();
    assertThat(leaseOf(client, key)).isEqualTo(-1);
  }

  @Test
  void theGroupThreadGoesOnAfterAnError() {
    Client client = etcds.client(etcd.cluster());
    GroupMembers members = new GroupMembers(etcds, client, group(), 2);
    AtomicInteger asked = new AtomicInteger();
    BooleanSupplier canMove =
        () -> {
          if (asked.incrementAndGet() <= 3) {
            throw new AssertionError("injected: a bug in canMove");
          }
          return true;
        };
    GroupMembers.Member a = members.start("a", 0, Duration.ZERO, canMove);
    await().atMost(WAIT).until(() -> a.leads() == 2);
    GroupMembers.Member b = members.start("b");

    await().atMost(WAIT).until(() -> a.leads() == 1 && b.leads() == 1);
    assertThat(asked.get()).isGreaterThan(3);
    assertThat(b.sees("a")).isPresent();
  }

  @Test
  void anElectionOfAnotherCandidateIdIsRefused() {
    Client client = etcds.client(etcd.cluster());
    EtcdSession session = etcds.session(client, SessionOptions.defaults());
    OfficeGroup officeGroup =
        session.group(GroupOptions.builder(group()).candidateId("me").build());
    Election other = session.election(ElectionOptions.builder("x").candidateId("you").build());

    assertThatThrownBy(() -> officeGroup.add(other))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("'you'")
        .hasMessageContaining("candidate id 'me'");
  }

  /** What {@code appender} holds now: it appends under its own lock, from the group's threads. */
  private static List<ILoggingEvent> snapshot(ListAppender<ILoggingEvent> appender) {
    synchronized (appender) {
      return List.copyOf(appender.list);
    }
  }
}
