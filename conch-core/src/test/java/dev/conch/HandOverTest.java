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
  void aHandOverComparesTheLeaderTheKeysBetweenAndTheTarget() {
    assertThat(HandOver.compares(0)).isEqualTo(2);
    assertThat(HandOver.compares(126)).isEqualTo(128);
    assertThat(HandOver.MAX_BETWEEN).isEqualTo(126);
  }

  @Test
  void asManyCandidatesBetweenAsEtcdsDefaultTakesArePassed() {
    List<Holder> line = line(126);
    HandOver.Plan plan = HandOver.plan(line.get(0), line, "t");
    assertThat(plan.between()).hasSize(126);
    assertThat(plan.target().id()).isEqualTo("t");
  }

  @Test
  void oneMoreThanEtcdsDefaultTakesIsRefusedNamingTheNumberAndTheLimit() {
    List<Holder> line = line(127);
    assertThatThrownBy(() -> HandOver.plan(line.get(0), line, "t"))
        .isInstanceOf(TransferRefusedException.class)
        .hasMessage(
            "office 'billing': cannot hand over to 't': 127 candidates stand between this leader"
                + " and the target: the hand-over would compare 129 keys in one transaction, and"
                + " the store takes at most 128 (etcd's default --max-txn-ops), so at most 126 can"
                + " be passed; nothing was changed");
  }

  @Test
  void aLowerLimitLearnedFromEtcdIsHeldToAtItsBoundary() {
    List<Holder> fits = line(14);
    assertThat(HandOver.plan(fits.get(0), fits, "t", 16).between()).hasSize(14);

    List<Holder> line = line(15);
    assertThatThrownBy(() -> HandOver.plan(line.get(0), line, "t", 16))
        .isInstanceOf(TransferRefusedException.class)
        .hasMessageContaining("15 candidates stand between")
        .hasMessageContaining("compare 17 keys")
        .hasMessageContaining("at most 16 (etcd's --max-txn-ops, as it refused larger")
        .hasMessageContaining("at most 14 can be passed");
  }
}
