package dev.conch.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.conch.InvalidArgumentException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RenewalBudgetTest {

  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);

  @Test
  void cliDefaultsRenewEverySecondWithHalfSecondAttempts() {
    // conch elect: TTL 10 s, kill-after 5 s + 500 ms slack, margin 500 ms: 4 s to renew in.
    RenewalBudget budget =
        RenewalBudget.of(
            Duration.ofSeconds(10),
            Duration.ofMillis(5500),
            Duration.ofMillis(500),
            Duration.ofSeconds(10).dividedBy(3),
            CALL_TIMEOUT);

    assertThat(budget.interval()).isEqualTo(Duration.ofSeconds(1));
    assertThat(budget.attemptTimeout()).isEqualTo(Duration.ofMillis(500));
  }

  @Test
  void aRoomyWindowKeepsTheConfiguredInterval() {
    RenewalBudget budget =
        RenewalBudget.of(
            Duration.ofSeconds(60),
            Duration.ofSeconds(1),
            Duration.ofMillis(500),
            Duration.ofSeconds(5),
            CALL_TIMEOUT);

    assertThat(budget.interval()).isEqualTo(Duration.ofSeconds(5));
    assertThat(budget.attemptTimeout()).isEqualTo(CALL_TIMEOUT);
  }

  @Test
  void etcdsShortestTtlFitsAShortKillAfter() {
    // conch elect --ttl 2s --kill-after 100ms: 900 ms to renew in.
    RenewalBudget budget =
        RenewalBudget.of(
            Duration.ofSeconds(2),
            Duration.ofMillis(600),
            Duration.ofMillis(500),
            Duration.ofSeconds(2).dividedBy(3),
            CALL_TIMEOUT);

    assertThat(budget.interval()).isEqualTo(Duration.ofMillis(225));
    assertThat(budget.attemptTimeout()).isEqualTo(Duration.ofMillis(112).plusNanos(500_000));
  }

  @Test
  void aLossLeadThatLeavesNoRoomToRetryIsRefusedNamingTheValues() {
    assertThatThrownBy(
            () ->
                RenewalBudget.of(
                    Duration.ofSeconds(2),
                    Duration.ofMillis(1200),
                    Duration.ofMillis(500),
                    Duration.ofMillis(666),
                    CALL_TIMEOUT))
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("invalid stop-timeout '1s200ms'")
        .hasMessageContaining("(1s700ms) must leave at least 400ms of the ttl (2s)");
  }
}
