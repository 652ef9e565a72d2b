package dev.conch.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.conch.ElectionOptions;
import dev.conch.InvalidArgumentException;
import dev.conch.Setting;
import dev.conch.process.ExternalCommandRunner;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The figures of a timing budget, each computed here by hand from the settings. */
class TimingBudgetTest {

  /** conch elect's call timeout. */
  private static final Duration CLI_TIMEOUT = Duration.ofSeconds(3);

  private static Duration ms(long millis) {
    return Duration.ofMillis(millis);
  }

  private static TimingBudget cli(Duration ttl, Duration killAfter, boolean onLose) {
    SessionOptions session = SessionOptions.defaults().withTtl(ttl).withTimeout(CLI_TIMEOUT);
    ElectionOptions election =
        ElectionOptions.builder("x").stopTimeout(killAfter.plusMillis(500)).build();
    return TimingBudget.ofRunner(session, election, killAfter, Duration.ofSeconds(30), onLose);
  }

  @Test
  void cliDefaults() {
    // TTL 10 s; kill-after 5 s + 500 ms slack + 500 ms margin = loss lead 6 s; W = 4 s.
    TimingBudget budget = cli(Duration.ofSeconds(10), Duration.ofSeconds(5), false);

    assertThat(budget.lossLead()).isEqualTo(ms(6000));
    assertThat(budget.window()).isEqualTo(ms(4000));
    assertThat(budget.renewInterval()).isEqualTo(ms(1000)); // min(10 s / 3, W / 4)
    assertThat(budget.attemptTimeout()).isEqualTo(ms(500)); // min(3 s, W / 8)
    // W - 1 s - 500 ms: not enough for an etcd raft leader change (the CLI's TTL is 15 s now).
    assertThat(budget.outageRiddenOut()).isEqualTo(ms(2500));
    assertThat(budget.ridesOutRaftLeaderChange()).isFalse();
    assertThat(budget.crashFailover()).isEqualTo(ms(10_500)); // TTL + 500 ms scan
    // The SIGTERM grace, then up to 2 s for the group to be gone after its SIGKILL.
    assertThat(budget.gracefulHandover()).isEqualTo(ms(7000));
    // After a loss the command's SIGKILL goes out at D - 6 s + 5 s = D - 1 s; an on-lose hook
    // still running at D - 500 ms (the margin) is killed then.
    assertThat(budget.loseHookEnd()).isEqualTo(ms(-500));
    assertThat(budget.fencedOnlyPause()).isEqualTo(ms(8500)); // TTL - 1 s - 500 ms margin
    assertThat(budget.runner()).isTrue();
  }

  @Test
  void cliDefaultsRideOutAnEtcdRaftLeaderChange() {
    // conch elect's TTL 15 s: W = 15 s - 6 s = 9 s, renewals every 2.25 s, attempts 1.125 s.
    TimingBudget budget = cli(ExternalCommandRunner.DEFAULT_TTL, Duration.ofSeconds(5), false);

    assertThat(budget.renewInterval()).isEqualTo(ms(2250));
    assertThat(budget.attemptTimeout()).isEqualTo(ms(1125));
    assertThat(budget.outageRiddenOut()).isEqualTo(ms(5625));
    assertThat(budget.outageRiddenOut()).isGreaterThan(TimingBudget.RAFT_LEADER_CHANGE);
    assertThat(budget.crashFailover()).isEqualTo(ms(15_500));
    assertThat(budget.summary())
        .contains("rides out etcd outages up to 5s625ms; an etcd raft leader change costs no term");
  }

  @Test
  void aBudgetThatCannotRideOutARaftLeaderChangeSaysSo() {
    TimingBudget budget = cli(Duration.ofSeconds(10), Duration.ofSeconds(5), false);

    assertThat(budget.summary())
        .contains(
            "a raft leader change that takes longer than 2s500ms ends the term (etcd's take up to"
                + " 4s with its default election timeout: raise the ttl, or shorten kill-after)");
  }

  @Test
  void anOnLoseHookLengthensTheGracefulHandOverByItsTimeoutItsKillAfterAndItsKillWait() {
    TimingBudget budget = cli(Duration.ofSeconds(10), Duration.ofSeconds(5), true);

    // (5 s + 2 s) for the command's group, 30 s + (5 s + 2 s) for on-lose's.
    assertThat(budget.gracefulHandover()).isEqualTo(ms(44_000));
  }

  @Test
  void aRenewalThatFailedFastIsRetriedAQuarterAttemptLaterNotAtOnce() {
    assertThat(cli(Duration.ofSeconds(10), Duration.ofSeconds(5), false).retryAfterFastFailure())
        .isEqualTo(ms(125)); // 500 ms / 4
    assertThat(cli(Duration.ofSeconds(2), ms(100), false).retryAfterFastFailure())
        .isEqualTo(ms(28).plusNanos(125_000)); // 112.5 ms / 4
  }

  @Test
  void etcdsShortestTtlWithAShortKillAfter() {
    // --ttl 2s --kill-after 100ms: loss lead 100 + 500 + 500 ms = 1.1 s; W = 900 ms.
    TimingBudget budget = cli(Duration.ofSeconds(2), ms(100), false);

    assertThat(budget.window()).isEqualTo(ms(900));
    assertThat(budget.renewInterval()).isEqualTo(ms(225)); // min(666 ms, W / 4)
    assertThat(budget.attemptTimeout()).isEqualTo(ms(112).plusNanos(500_000)); // W / 8
    assertThat(budget.outageRiddenOut()).isEqualTo(ms(562).plusNanos(500_000)); // W - I - A
    assertThat(budget.crashFailover()).isEqualTo(ms(2500));
    assertThat(budget.gracefulHandover()).isEqualTo(ms(2100)); // 100 ms + 2 s kill wait
    // SIGKILL at D - 1.1 s + 100 ms = D - 1 s; on-lose is killed at D - 500 ms.
    assertThat(budget.loseHookEnd()).isEqualTo(ms(-500));
    assertThat(budget.fencedOnlyPause()).isEqualTo(ms(1275)); // 2 s - 225 ms - 500 ms
  }

  @Test
  void springDefaultsForAnOfficeWithItsOwnHooks() {
    // TTL 10 s, call timeout 5 s; stop timeout 1 s + margin 500 ms; W = 8.5 s; hooks 30 s each.
    TimingBudget budget =
        TimingBudget.of(SessionOptions.defaults(), ElectionOptions.forOffice("x"));

    assertThat(budget.renewInterval()).isEqualTo(ms(2125)); // W / 4 < 10 s / 3
    assertThat(budget.attemptTimeout()).isEqualTo(ms(1062).plusNanos(500_000)); // W / 8
    assertThat(budget.outageRiddenOut()).isEqualTo(ms(5312).plusNanos(500_000)); // W - I - A
    assertThat(budget.ridesOutRaftLeaderChange()).isTrue();
    assertThat(budget.crashFailover()).isEqualTo(ms(10_500));
    assertThat(budget.gracefulHandover()).isEqualTo(ms(30_000));
    // The hooks start at D - 1.5 s; at D - 500 ms one still running is interrupted and not
    // waited for, though its timeout (30 s) has not run out.
    assertThat(budget.loseHookEnd()).isEqualTo(ms(-500));
    // A process that wakes by D - 1.5 s still gives its hooks their whole stop timeout.
    assertThat(budget.fencedOnlyPause()).isEqualTo(ms(6375));
    assertThat(budget.runner()).isFalse();
  }

  @Test
  void loseHooksAreWaitedForUntilTheSafetyMarginBeforeTheDeadlineWhateverTheirTimeout() {
    ElectionOptions election =
        ElectionOptions.builder("x")
            .stopTimeout(ms(2000))
            .safetyMargin(ms(1000))
            .hookTimeout(ms(500))
            .build();

    TimingBudget budget = TimingBudget.of(SessionOptions.defaults(), election);

    // Loss lead 3 s: the hooks start at D - 3 s, each is given up after 500 ms, and the stop as a
    // whole at D - 1 s.
    assertThat(budget.loseHookEnd()).isEqualTo(ms(-1000));
    assertThat(budget.summary())
        .contains(
            "a lose hook still running at D-1s is interrupted and not waited for (one that ignores"
                + " interrupts runs on; a successor may start at D)");
  }

  @Test
  void aConfiguredRenewIntervalBelowTheBudgetsIsKept() {
    SessionOptions session =
        SessionOptions.defaults().withTtl(Duration.ofSeconds(30)).withRenewInterval(ms(1000));

    TimingBudget budget = TimingBudget.of(session, ElectionOptions.forOffice("x"));

    // W = 28.5 s: renewals every 1 s (not W / 4), attempts W / 8 (below the 5 s call timeout).
    assertThat(budget.renewInterval()).isEqualTo(ms(1000));
    assertThat(budget.attemptTimeout()).isEqualTo(ms(3562).plusNanos(500_000));
    assertThat(budget.outageRiddenOut()).isEqualTo(ms(23_937).plusNanos(500_000)); // W - I - A
    assertThat(budget.fencedOnlyPause()).isEqualTo(ms(27_500));
  }

  @Test
  void settingsThatCannotFitAreRefusedAsTheSessionWouldRefuseThem() {
    assertThatThrownBy(() -> cli(Duration.ofSeconds(2), ms(1000), false))
        .isInstanceOf(InvalidArgumentException.class)
        .satisfies(
            e ->
                assertThat(((InvalidArgumentException) e).setting()).contains(Setting.STOP_TIMEOUT))
        .hasMessageContaining("2s");
  }

  @Test
  void summaryNamesEveryFigureInOneLine() {
    String summary = cli(Duration.ofSeconds(10), Duration.ofSeconds(5), false).summary();

    assertThat(summary)
        .doesNotContain("\n")
        .contains("ttl 10s asked for")
        .contains("renewed every 1s (attempts up to 500ms)")
        .contains("rides out etcd outages up to 2s500ms")
        .contains("crash fail-over up to 10s500ms")
        .contains(
            "graceful hand-over up to 7s (with 2s per process group for it to be gone after a"
                + " SIGKILL)")
        .contains("on-lose may run until D-500ms")
        .contains("a pause over 8s500ms is fenced only");
  }

  @Test
  void offsetsFromTheDeadlineAreSigned() {
    assertThat(TimingBudget.relative(ms(-1500))).isEqualTo("D-1s500ms");
    assertThat(TimingBudget.relative(ms(-500))).isEqualTo("D-500ms");
    assertThat(TimingBudget.relative(ms(28_500))).isEqualTo("D+28s500ms");
    assertThat(TimingBudget.relative(Duration.ZERO)).isEqualTo("D");
  }
}
