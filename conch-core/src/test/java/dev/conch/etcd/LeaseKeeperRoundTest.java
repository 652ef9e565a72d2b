package dev.conch.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Which held keys a renewal round reads: every term's own key in every round; the keys that only
 * wake someone all in every round while they fit beside the terms' in {@link
 * LeaseKeeper#BELT_TRANSACTIONS} more transactions (a session's leases share those), else each in
 * its turn.
 */
class LeaseKeeperRoundTest {

  private static List<String> keys(String prefix, int n) {
    return IntStream.range(0, n).mapToObj(i -> prefix + i).toList();
  }

  @Test
  void aSessionOfAFewThousandKeysReadsThemAllInEveryRound() {
    List<String> terms = keys("t", 300);
    // 300 terms fill 3 transactions of 128 (84 spare), and 8 more take 1 024: 1 108 wakers fit.
    List<String> wakers = keys("w", 1108);
    for (long round = 0; round < 3; round++) {
      assertThat(
              LeaseKeeper.roundOf(
                  terms, wakers, 128, LeaseKeeper.BELT_TRANSACTIONS, round, String::hashCode))
          .hasSize(1408)
          .containsAll(terms)
          .containsAll(wakers);
    }
  }

  @Test
  void tenThousandFollowersAreReadEachInItsTurnAndTheTermsInEveryRound() {
    List<String> terms = keys("t", 200);
    List<String> wakers = keys("w", 10_000);
    // 2 transactions for the terms (56 spare) and 8 more: 1 080 wakers a round on average, so each
    // is read every 10th round.
    Set<String> seen = new HashSet<>();
    List<Integer> sizes = new ArrayList<>();
    for (long round = 0; round < 10; round++) {
      List<String> read =
          LeaseKeeper.roundOf(
              terms, wakers, 128, LeaseKeeper.BELT_TRANSACTIONS, round, String::hashCode);
      assertThat(read).containsAll(terms);
      sizes.add(read.size() - terms.size());
      seen.addAll(read);
    }
    assertThat(seen).containsAll(wakers);
    assertThat(sizes.stream().mapToInt(Integer::intValue).sum()).isEqualTo(10_000);
    // Far fewer than all 10 000 in any one round: about a tenth each.
    assertThat(sizes).allSatisfy(size -> assertThat(size).isBetween(800, 1300));
  }

  @Test
  void oneOfTenLeasesOfASessionSpendsItsShareOfTheBelt() {
    // A tenth of 10 000 offices on this lease: 333 terms (3 transactions, 51 spare) and 667
    // followers. Its share of the session's 8 belt transactions is 1: 179 followers fit, each is
    // read every 4th round, and the round is 4 transactions, not 9.
    List<String> terms = keys("t", 333);
    List<String> wakers = keys("w", 667);
    Set<String> seen = new HashSet<>();
    for (long round = 0; round < 4; round++) {
      List<String> read = LeaseKeeper.roundOf(terms, wakers, 128, 1, round, String::hashCode);
      assertThat(read).containsAll(terms);
      assertThat(read.size()).isLessThanOrEqualTo(4 * 128 + 60);
      seen.addAll(read);
    }
    assertThat(seen).containsAll(wakers);
  }

  @Test
  void aLowerLimitLearnedFromEtcdShrinksTheRoundToo() {
    List<String> wakers = keys("w", 1000);
    // 16 to a transaction: 8 transactions hold 128 wakers, so each is read every 8th round.
    List<String> read =
        LeaseKeeper.roundOf(
            List.of(), wakers, 16, LeaseKeeper.BELT_TRANSACTIONS, 0, String::hashCode);
    assertThat(read.size()).isBetween(80, 180);
  }
}
