package dev.conch.etcd;

import static dev.conch.etcd.EtcdCalls.bytes;
import static dev.conch.etcd.EtcdCalls.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.GroupOptions;
import dev.conch.InvalidArgumentException;
import dev.conch.OfficeGroup;
import dev.conch.OfficeGroup.Member;
import dev.conch.test.EtcdExtension;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A group's membership on a real etcd: one key per member on its lease under the meta root, one
 * watch per member whatever the number of offices, and nothing asked of etcd while nothing changes.
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
}
