package dev.conch.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.Gate;
import dev.conch.OfficeGroup.Move;
import dev.conch.OfficeGroup.Reason;
import dev.conch.test.EtcdExtension;
import io.etcd.jetcd.Client;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The share on a real etcd always converges: offices led outside the group, a member that was out
 * of every line and comes back, a top-priority member that cannot receive, and a priority member
 * that keeps rejoining.
 */
@Timeout(180)
class EtcdGroupConvergenceTest {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final AtomicInteger GROUPS = new AtomicInteger();

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private final Etcds etcds = new Etcds();

  @AfterEach
  void close() {
    etcds.close();
  }

  private GroupMembers members(Client client, int offices) {
    return new GroupMembers(etcds, client, "converge" + GROUPS.incrementAndGet(), offices);
  }

  @Test
  void twelveOfficesWithThreeLedOutsideTheGroupAreSharedThreeEach() {
    Client client = etcds.client(etcd.cluster());
    GroupMembers members = members(client, 12);
    // An application's own elections (not in the group) lead three of the offices.
    EtcdSession outsider = etcds.session(client, SessionOptions.defaults());
    List<Election> outside =
        members.offices().subList(0, 3).stream()
            .map(
                office ->
                    outsider.election(ElectionOptions.builder(office).candidateId("app").build()))
            .toList();
    outside.forEach(Election::start);
    await().atMost(WAIT).until(() -> outside.stream().allMatch(Election::isLeader));

    GroupMembers.Member a = members.start("a");
    await().atMost(WAIT).until(() -> a.leads() == 9);
    GroupMembers.Member b = members.start("b");
    GroupMembers.Member c = members.start("c");

    // The floor of 12 / 3 stopped it at 4 / 3 / 2 (or 4 / 4 / 1) before: 9 are the members' own.
    await().atMost(WAIT).until(() -> shares(a, b, c), List.of(3, 3, 3)::equals);
    await()
        .during(Duration.ofSeconds(2))
        .atMost(WAIT)
        .until(() -> shares(a, b, c), List.of(3, 3, 3)::equals);
    assertThat(outside).allMatch(Election::isLeader);
    assertThat(GroupMembers.settledMoves(WAIT, a, b, c)).isEqualTo(6);
  }

  @Test
  void aMemberOutOfEveryLineIsPassedOverAndGetsItsShareWhenItComesBack() {
    Client client = etcds.client(etcd.cluster());
    GroupMembers members = members(client, 12);
    AtomicBoolean healthy = new AtomicBoolean(true);
    Gate health = office -> healthy.get() ? Gate.Decision.allow() : Gate.Decision.deny("DOWN");
    GroupMembers.Member a = members.start("a");
    await().atMost(WAIT).until(() -> a.leads() == 12);
    GroupMembers.Member b = members.start("b");
    GroupMembers.Member c = members.start("c", 0, Duration.ZERO, () -> true, health, e -> e);
    await().atMost(WAIT).until(() -> shares(a, b, c), List.of(4, 4, 4)::equals);

    // c's health goes DOWN: it leaves every line, its offices fail over, and it says so.
    healthy.set(false);
    c.leaveEveryLine();
    await().atMost(WAIT).until(() -> shares(a, b, c), List.of(6, 6, 0)::equals);
    await().atMost(WAIT).until(() -> a.sees("c").map(m -> !m.receiving()).orElse(false));
    int before = GroupMembers.settledMoves(WAIT, a, b);
    await()
        .during(Duration.ofSeconds(1))
        .atMost(WAIT)
        .until(() -> shares(a, b, c), List.of(6, 6, 0)::equals);

    // UP again: it stands in every line, and is given its share (refused before, never retried).
    long back = System.nanoTime();
    healthy.set(true);
    await().atMost(WAIT).until(() -> shares(a, b, c), List.of(4, 4, 4)::equals);
    System.out.printf(
        "health-gate cycle: back to 4/4/4 %d ms after UP%n",
        (System.nanoTime() - back) / 1_000_000);
    assertThat(GroupMembers.settledMoves(WAIT, a, b) - before).isEqualTo(4);
    await()
        .during(Duration.ofSeconds(2))
        .atMost(WAIT)
        .until(() -> shares(a, b, c), List.of(4, 4, 4)::equals);
  }

  @Test
  void aTopPriorityMemberInNoLineDoesNotFreezeTheShareBelowIt() {
    Client client = etcds.client(etcd.cluster());
    GroupMembers members = members(client, 12);
    Duration tenure = Duration.ofSeconds(1);
    AtomicBoolean healthy = new AtomicBoolean(false);
    Gate health = office -> healthy.get() ? Gate.Decision.allow() : Gate.Decision.deny("DOWN");
    GroupMembers.Member a = members.start("a", 0, tenure, () -> true);
    await().atMost(WAIT).until(() -> a.leads() == 12);
    GroupMembers.Member top = members.start("top", 5, tenure, () -> true, health, e -> e);
    GroupMembers.Member b = members.start("b", 0, tenure, () -> true);

    // The top member is in the group but in no line: the others share as if it were not there.
    await().atMost(WAIT).until(() -> shares(a, b), List.of(6, 6)::equals);
    assertThat(a.sees("top")).hasValueSatisfying(m -> assertThat(m.receiving()).isFalse());
    assertThat(a.moves).extracting(Move::reason).containsOnly(Reason.SHARE);

    // Once it can receive, priority first: it is handed every office.
    healthy.set(true);
    await().atMost(WAIT).until(() -> shares(a, b, top), List.of(0, 0, 12)::equals);
  }

  @Test
  void aPriorityMemberThatKeepsRejoiningIsNotHandedOfficesUntilItStayedTheHoldDown() {
    Client client = etcds.client(etcd.cluster());
    GroupMembers members = members(client, 4);
    // The hold-down is the minimum tenure; the members' own terms are far older by then.
    Duration holdDown = Duration.ofSeconds(4);
    GroupMembers.Member a = members.start("a", 0, holdDown, () -> true);
    await().atMost(WAIT).until(() -> a.leads() == 4);
    GroupMembers.Member b = members.start("b", 0, holdDown, () -> true);
    await().atMost(WAIT).until(() -> shares(a, b), List.of(2, 2)::equals);

    // It crash-loops: up for 1.5 s (well past the delay), then gone, three times.
    for (int i = 0; i < 3; i++) {
      GroupMembers.Member loop = members.start("high", 9, holdDown, () -> true);
      await().atMost(WAIT).until(() -> a.sees("high").isPresent());
      await().during(Duration.ofMillis(1500)).atMost(WAIT).until(() -> loop.leads() == 0);
      loop.session.close();
      await().atMost(WAIT).until(() -> a.sees("high").isEmpty());
    }
    assertThat(Stream.of(a, b).flatMap(m -> m.moves.stream()))
        .noneMatch(move -> move.reason() == Reason.PRIORITY);

    // It stays: once its key is older than the hold-down, it leads every office.
    long joined = System.nanoTime();
    GroupMembers.Member high = members.start("high", 9, holdDown, () -> true);
    await().atMost(WAIT).until(() -> high.leads() == 4);
    assertThat(Duration.ofNanos(System.nanoTime() - joined)).isGreaterThanOrEqualTo(holdDown);
  }

  private static List<Integer> shares(GroupMembers.Member... members) {
    return Stream.of(members).map(GroupMembers.Member::leads).toList();
  }
}
