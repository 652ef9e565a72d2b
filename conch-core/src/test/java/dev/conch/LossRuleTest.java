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
}
