package dev.conch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The plan of a named hand-over against etcd's limit on one transaction: it compares the leader's
 * key, each key between and the target's, and etcd refuses a transaction with more compares than
 * its {@code --max-txn-ops}.
 */
class HandOverTest {

  private static final String OFFICE = "billing";

  /** The leader, {@code between} candidates, then the target "t". */
  private static List<Holder> line(int between) {
    List<Holder> line = new ArrayList<>();
    line.add(holder("a", 1));
    for (int i = 0; i < between; i++) {
      line.add(holder("c" + i, 2 + i));
    }
    line.add(holder("t", 2 + between));
    return line;
  }

  private static Holder holder(String id, long rev) {
    return Holder.of(OFFICE, "host", 1, null, id).at(rev, 1000 + rev);
  }

  @Test
  void aHandOverDeletesTheLeaderAndTheKeysBetweenAndWritesTheHistory() {
    assertThat(HandOver.operations(0)).isEqualTo(3);
    assertThat(HandOver.operations(125)).isEqualTo(128);
    assertThat(HandOver.MAX_BETWEEN).isEqualTo(125);
  }

  @Test
  void asManyCandidatesBetweenAsEtcdsDefaultTakesArePassed() {
    List<Holder> line = line(125);
    HandOver.Plan plan = HandOver.plan(line.get(0), line, "t");
    assertThat(plan.between()).hasSize(125);
    assertThat(plan.target().id()).isEqualTo("t");
  }

  @Test
  void oneMoreThanEtcdsDefaultTakesIsRefusedNamingTheNumberAndTheLimit() {
    List<Holder> line = line(126);
    assertThatThrownBy(() -> HandOver.plan(line.get(0), line, "t"))
        .isInstanceOf(TransferRefusedException.class)
        .hasMessage(
            "office 'billing': cannot hand over to 't': 126 candidates stand between this leader"
                + " and the target: the hand-over would take 129 operations in one transaction,"
                + " and the store takes at most 128 (etcd's default --max-txn-ops), so at most 125"
                + " can be passed; nothing was changed");
  }

  @Test
  void aLowerLimitLearnedFromEtcdIsHeldToAtItsBoundary() {
    List<Holder> fits = line(13);
    assertThat(HandOver.plan(fits.get(0), fits, "t", 16).between()).hasSize(13);

    List<Holder> line = line(14);
    assertThatThrownBy(() -> HandOver.plan(line.get(0), line, "t", 16))
        .isInstanceOf(TransferRefusedException.class)
        .hasMessageContaining("14 candidates stand between")
        .hasMessageContaining("take 17 operations")
        .hasMessageContaining("at most 16 (etcd's --max-txn-ops, as it refused larger")
        .hasMessageContaining("at most 13 can be passed");
  }

  @Test
  void toTheFirstOfSeveralTargetsTheOneFirstInLineIsChosenPassingTheFewest() {
    // a leads; then c0, c1, c2 and t: of t and c1, c1 stands first, one candidate before it.
    List<Holder> line = line(3);
    HandOver.Plan plan =
        HandOver.plan(line.get(0), line, List.of("t", "c1"), HandOver.ETCD_MAX_TXN_OPS);
    assertThat(plan.targetId()).isEqualTo("c1");
    assertThat(plan.between()).extracting(Holder::id).containsExactly("c0");
  }

  @Test
  void severalTargetsNoneOfThemInLineAreRefusedNamingThemAndTheLine() {
    List<Holder> line = line(1);
    assertThatThrownBy(
            () -> HandOver.plan(line.get(0), line, List.of("x", "y"), HandOver.ETCD_MAX_TXN_OPS))
        .isInstanceOf(TransferRefusedException.class)
        .hasMessage(
            "office 'billing': cannot hand over to 'x' or 'y': none is a live candidate of the"
                + " office; the candidates in line behind this leader are [c0, t]; nothing was"
                + " changed");
  }
}
