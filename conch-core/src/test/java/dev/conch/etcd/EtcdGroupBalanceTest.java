package dev.conch.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.OfficeGroup.Move;
import dev.conch.OfficeGroup.Reason;
import dev.conch.test.EtcdExtension;
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
 * Members of a group on a real etcd share its offices fairly with no coordinator, each moving only
 * what it leads by a named hand-over: the shares, the moves it takes to reach them, priority, and
 * an office whose work cannot stop.
 */
@Timeout(180)
class EtcdGroupBalanceTest {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final AtomicInteger GROUPS = new AtomicInteger();

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private final Etcds etcds = new Etcds();

  @AfterEach
  void close() {
    etcds.close();
  }

  private GroupMembers members(int offices) {
    return new GroupMembers(
        etcds, etcds.client(etcd.cluster()), "balance" + GROUPS.incrementAndGet(), offices);
  }

  @Test
  void threeMembersOfTwelveOfficesLeadFourEachWithTheFewestMoves() {
    GroupMembers members = members(12);
    GroupMembers.Member a = members.start("a");
    await().atMost(WAIT).until(() -> a.leads() == 12);
    GroupMembers.Member b = members.start("b");
    GroupMembers.Member c = members.start("c");

    await().atMost(WAIT).until(() -> shares(a, b, c), List.of(4, 4, 4)::equals);
    // From 12 / 0 / 0 at least 8 offices must move, and no more did.
    assertThat(GroupMembers.settledMoves(WAIT, a, b, c)).isEqualTo(8);
    assertThat(a.moves).extracting(Move::reason).containsOnly(Reason.SHARE);
    await().during(Duration.ofSeconds(2)).atMost(WAIT).until(() -> moves(a, b, c) == 8);

    // One stops: its offices go to whoever is next in line, then the two share them.
    c.session.close();
    await().atMost(WAIT).until(() -> shares(a, b), s -> s.equals(List.of(6, 6)));
    int afterStop = GroupMembers.settledMoves(WAIT, a, b);
    // The four offices of c landed 4 / 0, 3 / 1 or 2 / 2: at most two moves to even them.
    assertThat(afterStop - 8).isBetween(0, 2);

    // It comes back: 6 / 6 / 0 takes four moves to 4 / 4 / 4.
    GroupMembers.Member back = members.start("c");
    await().atMost(WAIT).until(() -> shares(a, b, back), List.of(4, 4, 4)::equals);
    await()
        .during(Duration.ofSeconds(2))
        .atMost(WAIT)
        .until(() -> shares(a, b, back), List.of(4, 4, 4)::equals);
    assertThat(GroupMembers.settledMoves(WAIT, a, b) - afterStop).isEqualTo(4);
  }

  @Test
  void aMemberOfHigherPriorityIsHandedTheOfficeAfterTheMinimumTenure() {
    GroupMembers members = members(1);
    Duration tenure = Duration.ofSeconds(2);
    GroupMembers.Member low = members.start("low", 0, tenure, () -> true);
    await().atMost(WAIT).until(() -> low.leads() == 1);
    GroupMembers.Member high = members.start("high", 5, tenure, () -> true);

    await().atMost(WAIT).until(() -> high.leads() == 1);
    await().atMost(WAIT).until(() -> !low.moves.isEmpty()); // reported once high is seen leading
    assertThat(low.moves)
        .singleElement()
        .satisfies(
            move -> {
              assertThat(move.reason()).isEqualTo(Reason.PRIORITY);
              assertThat(move.to()).isEqualTo("high");
              assertThat(move.office()).isEqualTo(members.offices().get(0));
            });
    // The holder JSON says who is preferred.
    assertThat(high.elections.get(0).leader().orElseThrow().priority()).isEqualTo(5);
    // The higher one keeps it: a lower member never takes from a higher.
    await().during(Duration.ofSeconds(3)).atMost(WAIT).until(() -> high.leads() == 1);
    assertThat(high.moves).isEmpty();
  }

  @Test
  void equalPrioritiesNeverMove() {
    GroupMembers members = members(1);
    GroupMembers.Member first = members.start("first", 3, Duration.ZERO, () -> true);
    await().atMost(WAIT).until(() -> first.leads() == 1);
    GroupMembers.Member second = members.start("second", 3, Duration.ZERO, () -> true);
    await().atMost(WAIT).until(second::queued);

    // Well past the delay and the (zero) tenure: one office, one leader, nothing moves.
    await().during(Duration.ofSeconds(3)).atMost(WAIT).until(() -> first.leads() == 1);
    assertThat(moves(first, second)).isZero();
  }

  @Test
  void anOfficeWhoseWorkCannotStopStaysUntilItCan() {
    GroupMembers members = members(2);
    AtomicBoolean canMove = new AtomicBoolean(false);
    GroupMembers.Member a = members.start("a", 0, Duration.ZERO, canMove::get);
    await().atMost(WAIT).until(() -> a.leads() == 2);
    GroupMembers.Member b = members.start("b");
    await().atMost(WAIT).until(b::queued);

    await().during(Duration.ofSeconds(2)).atMost(WAIT).until(() -> a.leads() == 2);
    assertThat(a.moves).isEmpty();

    canMove.set(true);
    await().atMost(WAIT).until(() -> shares(a, b), List.of(1, 1)::equals);
    assertThat(GroupMembers.settledMoves(WAIT, a)).isEqualTo(1);
  }

  @Test
  void aMemberLeavingAndOneJoiningWhileBatchesAreHandedOutEndInAFairShare() {
    GroupMembers members = members(60);
    GroupMembers.Member a = members.start("a");
    await().atMost(WAIT).until(() -> a.leads() == 60);
    GroupMembers.Member b = members.start("b");
    GroupMembers.Member c = members.start("c");
    // From 60 / 0 / 0, a hands out two batches of 20. Once the first offices arrived, c leaves
    // (its offices go to whoever is next in each line) and d joins.
    await().atMost(WAIT).until(() -> b.leads() + c.leads() > 0);
    c.session.close();
    GroupMembers.Member d = members.start("d");

    await().atMost(WAIT).until(() -> shares(a, b, d), EtcdGroupBalanceTest::fair);
    await()
        .during(Duration.ofSeconds(2))
        .atMost(WAIT)
        .until(() -> shares(a, b, d), EtcdGroupBalanceTest::fair);
    // Every office has one leader: the three lead all sixty, c none.
    assertThat(shares(a, b, d).stream().mapToInt(Integer::intValue).sum()).isEqualTo(60);
  }

  /** Sixty offices led in all, nobody more than one above another. */
  private static boolean fair(List<Integer> shares) {
    int max = shares.stream().mapToInt(Integer::intValue).max().orElseThrow();
    int min = shares.stream().mapToInt(Integer::intValue).min().orElseThrow();
    return shares.stream().mapToInt(Integer::intValue).sum() == 60 && max - min <= 1;
  }

  private static List<Integer> shares(GroupMembers.Member... members) {
    return Stream.of(members).map(GroupMembers.Member::leads).toList();
  }

  private static int moves(GroupMembers.Member... members) {
    return Stream.of(members).mapToInt(m -> m.moves.size()).sum();
  }
}
