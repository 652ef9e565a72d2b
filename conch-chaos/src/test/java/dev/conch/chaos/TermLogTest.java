package dev.conch.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.LossReason;
import dev.conch.chaos.TermLog.Term;
import java.util.List;
import org.junit.jupiter.api.Test;

class TermLogTest {

  private static Term term(String office, String member, long token, long start, long end) {
    return new Term(office, member, token, start, end, LossReason.TRANSFERRED);
  }

  @Test
  void termsThatFollowEachOtherDoNotOverlap() {
    List<Term> terms =
        List.of(
            term("a", "m0", 10, 0, 100),
            term("a", "m1", 12, 100, 200),
            term("b", "m1", 11, 50, 300),
            term("a", "m0", 15, 250, Long.MAX_VALUE));

    assertThat(TermLog.overlaps(terms)).isEmpty();
    assertThat(TermLog.tokenRegressions(terms)).isEmpty();
  }

  @Test
  void aTermThatStartsBeforeAnotherMembersEndIsAnOverlap() {
    List<Term> terms = List.of(term("a", "m0", 10, 0, 100), term("a", "m1", 12, 99, 200));

    assertThat(TermLog.overlaps(terms)).singleElement().asString().contains("a: m1 token 12");
  }

  @Test
  void aTermInsideALongOneIsAnOverlapEvenAfterAShortOneBetween() {
    // m0's term covers both later ones: the check compares with the latest end so far, not with
    // the term just before.
    List<Term> terms =
        List.of(
            term("a", "m0", 10, 0, 1000),
            term("a", "m0", 11, 10, 20),
            term("a", "m1", 12, 500, 600));

    assertThat(TermLog.overlaps(terms)).hasSize(1);
  }

  @Test
  void aTermStillLastingOverlapsAnyLaterOne() {
    List<Term> terms =
        List.of(term("a", "m0", 10, 0, Long.MAX_VALUE), term("a", "m1", 12, 500, 600));

    assertThat(TermLog.overlaps(terms)).singleElement().asString().contains("still led");
  }

  @Test
  void aTokenNotAboveTheOneBeforeIsARegression() {
    List<Term> terms =
        List.of(
            term("a", "m0", 10, 0, 100),
            term("a", "m1", 10, 100, 200),
            term("b", "m0", 9, 300, 400));

    assertThat(TermLog.tokenRegressions(terms)).containsExactly("a: m1 token 10 after m0 token 10");
  }
}
