package dev.conch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The loss rule as a table: facts (store, deadline) first, then what was asked, then the lead. */
class LossRuleTest {

  private static final long D = 10_000;
  private static final long LEAD = 3_000;

  @ParameterizedTest(name = "store {0}, asked {1}, now {2} => {3}")
  @CsvSource(
      nullValues = "-",
      value = {
        // nothing happened: holds until the loss lead before D, then renewal failed
        "-,              -,              0,     -",
        "-,              -,              6999,  -",
        "-,              -,              7000,  RENEWAL_FAILED",
        // the deadline passed before anyone looked: a successor may lead
        "-,              -,              10000, LEASE_EXPIRED",
        // commands are honoured while the facts allow it
        "-,              RESIGNED,       0,     RESIGNED",
        "-,              TRANSFERRED,    8000,  TRANSFERRED",
        "-,              CLOSED,         9999,  CLOSED",
        "-,              ACQUIRE_FAILED, 100,   ACQUIRE_FAILED",
        // ... but a fact the store reports wins over any command
        "KEY_DELETED,    RESIGNED,       0,     KEY_DELETED",
        "KEY_DELETED,    TRANSFERRED,    0,     KEY_DELETED",
        "LEASE_EXPIRED,  CLOSED,         0,     LEASE_EXPIRED",
        "KEY_DELETED,    ACQUIRE_FAILED, 0,     KEY_DELETED",
        "KEY_DELETED,    -,              0,     KEY_DELETED",
        // ... and so does a deadline that passed (a stalled loop, a late renewal failure)
        "-,              RESIGNED,       10000, LEASE_EXPIRED",
        "-,              TRANSFERRED,    12000, LEASE_EXPIRED",
        "-,              ACQUIRE_FAILED, 10001, LEASE_EXPIRED",
      })
  void lossReasonComesFromFactsFirst(
      LossReason store, LossReason asked, long now, LossReason expected) {
    assertThat(LossRule.decide(Optional.ofNullable(store), asked, now, D, LEAD))
        .isEqualTo(expected);
  }

  @ParameterizedTest(name = "stopping for {0}, learned {1} => {2}")
  @CsvSource(
      nullValues = "-",
      value = {
        // nothing new
        "RESIGNED,       -,              RESIGNED",
        "KEY_DELETED,    -,              KEY_DELETED",
        // a stop that kept the key learns it may go: the deadline rules from now on
        "RESIGNED,       RENEWAL_FAILED, RENEWAL_FAILED",
        "TRANSFERRED,    KEY_DELETED,    KEY_DELETED",
        "CLOSED,         LEASE_EXPIRED,  LEASE_EXPIRED",
        "ACQUIRE_FAILED, KEY_DELETED,    KEY_DELETED",
        "RENEWAL_FAILED, KEY_DELETED,    KEY_DELETED",
        "RENEWAL_FAILED, LEASE_EXPIRED,  LEASE_EXPIRED",
        // never downgraded, and the first fact that a successor may lead stays
        "RENEWAL_FAILED, RENEWAL_FAILED, RENEWAL_FAILED",
        "KEY_DELETED,    LEASE_EXPIRED,  KEY_DELETED",
        "LEASE_EXPIRED,  RENEWAL_FAILED, LEASE_EXPIRED",
      })
  void factsLearnedDuringAStopOnlyEverMakeItsReasonWorse(
      LossReason stopping, LossReason learned, LossReason expected) {
    assertThat(LossRule.upgrade(stopping, learned)).isEqualTo(expected);
  }
}
