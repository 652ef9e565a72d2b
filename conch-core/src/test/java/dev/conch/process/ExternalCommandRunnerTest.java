package dev.conch.process;

import static dev.conch.process.Runners.WAIT;
import static dev.conch.process.Runners.running;
import static dev.conch.process.Runners.sh;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.Holder;
import dev.conch.local.LocalOffices;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runner's state machine with real processes on the in-memory election: environment, exits,
 * losses, hooks, stop. Back-off and waiting are in {@link ExternalCommandRunnerRestartTest}.
 */
class ExternalCommandRunnerTest {

  private static final String OFFICE = "jobs";

  /** Writes its environment, then runs until stopped. */
  private static final List<String> ENV_THEN_SLEEP =
      sh("env > \"$T/env.tmp\" && mv \"$T/env.tmp\" \"$T/env\"; exec sleep 1000");

  @TempDir Path dir;
  private final LocalOffices offices = new LocalOffices();
  private Runners runners;

  @BeforeEach
  void runners() {
    runners = new Runners(dir);
  }

  @AfterEach
  void close() {
    runners.close();
  }

  private ExternalCommandRunner.Builder builder() {
    return runners.builder(OFFICE, offices::election);
  }

  /** A plain candidate that joins after the runner (queued behind it). */
  private Election follower() {
    Election follower =
        runners.track(offices.election(ElectionOptions.builder(OFFICE).candidateId("b").build()));
    return follower;
  }

  private Map<String, String> environment() {
    await().atMost(WAIT).until(() -> !runners.lines("env").isEmpty());
    return runners.lines("env").stream()
        .filter(line -> line.contains("="))
        .collect(
            Collectors.toMap(
                line -> line.substring(0, line.indexOf('=')),
                line -> line.substring(line.indexOf('=') + 1),
                (a, b) -> b));
  }

  @Test
  void commandSeesTheOfficeTheTokenTheLeaseAndTheParentsEnvironment() throws Exception {
    ExternalCommandRunner runner =
        runners.start(builder().command(ENV_THEN_SLEEP).electionName("/conch/v1/elect/jobs"));

    Map<String, String> env = environment();
    Holder leader = offices.leader(OFFICE).orElseThrow();
    assertThat(env)
        .containsEntry("CONCH_NAME", OFFICE)
        .containsEntry("CONCH_REV", Long.toString(leader.rev()))
        .containsEntry("CONCH_LEASE", Long.toHexString(leader.lease()))
        .containsEntry("ETCD_LOCK_REV", Long.toString(leader.rev()))
        .containsEntry("ETCD_LOCK_KEY", "/conch/v1/elect/jobs/" + Long.toHexString(leader.lease()))
        .containsEntry("T", dir.toString())
        .containsEntry("PATH", System.getenv("PATH"));
    assertThat(runner.childPid()).isPresent();
  }

  @Test
  void cleanExitRunsOnLoseResignsAndReturnsTheCommandsCode() throws Exception {
    ExternalCommandRunner runner =
        runners.start(
            builder()
                .command(sh("while [ ! -e \"$T/go\" ]; do sleep 0.05; done; exit 3"))
                .onLose("echo \"lost $CONCH_REV\" >> \"$T/marks\""));
    await().atMost(WAIT).until(() -> runner.childPid().isPresent());
    long token = offices.leader(OFFICE).orElseThrow().rev();
    Election follower = follower();
    follower.start();

    runners.touch("go");

    assertThat(runner.awaitExit(WAIT)).hasValue(3);
    assertThat(runners.lines("marks")).containsExactly("lost " + token);
    // The runner resigned: the follower leads without any expiry.
    assertThat(follower.awaitLeadership(WAIT)).isTrue();
  }

  @Test
  void commandKilledBySignalGivesOneHundredTwentyEightPlusTheSignal() throws Exception {
    ExternalCommandRunner runner = runners.start(builder().command(sh("kill -9 $$")));

    assertThat(runner.awaitExit(WAIT)).hasValue(ExitCodes.killedBy(9));
  }

  @Test
  void lossStopsTheCommandAndItsGrandchildThenRunsOnLoseAndEndsWith70() throws Exception {
    ExternalCommandRunner runner =
        runners.start(
            builder()
                .command(sh("echo $$ > \"$T/pid\"; sleep 1000 & echo $! > \"$T/grandchild\"; wait"))
                .onLose(
                    "if kill -0 $(cat \"$T/pid\") 2>/dev/null; then echo alive; else echo dead;"
                        + " fi >> \"$T/marks\""));
    long pid = runners.awaitPid("pid");
    long grandchild = runners.awaitPid("grandchild");

    offices.expire(OFFICE);

    assertThat(runner.awaitExit(WAIT)).hasValue(ExitCodes.LOST);
    assertThat(runners.lines("marks")).containsExactly("dead");
    assertThat(running(pid)).isFalse();
    assertThat(running(grandchild)).isFalse();
    assertThat(runner.childPid()).isEmpty();
  }

  @Test
  void commandIgnoringSigtermIsKilledAfterKillAfterBeforeOnLoseRuns() throws Exception {
    ExternalCommandRunner runner =
        runners.start(
            builder()
                .killAfter(Duration.ofMillis(800))
                .command(sh("trap '' TERM; echo $$ > \"$T/pid\"; while :; do sleep 1; done"))
                .onLose("date +%s%N >> \"$T/marks\""));
    long pid = runners.awaitPid("pid");
    long stopped = System.currentTimeMillis() * 1_000_000;

    runner.stop();

    assertThat(runner.awaitExit(WAIT)).hasValue(ExitCodes.STOPPED);
    assertThat(running(pid)).isFalse();
    long onLose = Long.parseLong(runners.lines("marks").get(0));
    // On-lose waited for SIGKILL, kill-after past SIGTERM.
    assertThat(onLose - stopped).isGreaterThanOrEqualTo(Duration.ofMillis(800).toNanos());
  }

  @Test
  void keyDeletedBySomeoneElseKillsTheCommandWithoutGrace() throws Exception {
    // A deleted key means a successor may lead already: no SIGTERM grace then.
    ExternalCommandRunner runner =
        runners.start(
            builder()
                .killAfter(Duration.ofSeconds(20))
                .command(sh("trap '' TERM; echo $$ > \"$T/pid\"; while :; do sleep 1; done"))
                .onLose("date +%s%N >> \"$T/marks\""));
    long pid = runners.awaitPid("pid");
    long revoked = System.currentTimeMillis() * 1_000_000;

    offices.revoke(OFFICE);

    assertThat(runner.awaitExit(WAIT)).hasValue(ExitCodes.LOST);
    assertThat(running(pid)).isFalse();
    long onLose = Long.parseLong(runners.lines("marks").get(0));
    assertThat(onLose - revoked).isLessThan(Duration.ofSeconds(20).toNanos());
  }

  @Test
  void failingOnAcquireHookWithRestartGivesTheOfficeUpWithoutStartingTheCommandAndCampaignsAgain()
      throws Exception {
    ExternalCommandRunner runner =
        runners.start(
            builder()
                .restart(true)
                .backoff(Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofSeconds(60))
                .onAcquire("echo \"hook $CONCH_REV\" >> \"$T/marks\"; exit 1")
                .command(sh("echo started >> \"$T/marks\"; exec sleep 1000")));
    await().atMost(WAIT).until(() -> !runners.lines("marks").isEmpty());
    Election follower = follower();
    follower.start();

    // The runner stepped down: the follower leads.
    assertThat(follower.awaitLeadership(WAIT)).isTrue();
    follower.resign();

    // ... and the runner campaigns again (and fails again).
    await().atMost(WAIT).until(() -> runners.lines("marks").size() >= 2);
    assertThat(runners.lines("marks")).allMatch(line -> line.matches("hook [1-9][0-9]*"));
    assertThat(runner.childPid()).isEmpty();
    assertThat(runner.awaitExit(Duration.ZERO)).isEmpty();
  }

  @Test
  void failingOnAcquireHookWithoutRestartGivesTheOfficeUpAndEndsWith70() throws Exception {
    ExternalCommandRunner runner =
        runners.start(
            builder()
                .onAcquire("echo \"hook $CONCH_REV\" >> \"$T/marks\"; exit 1")
                .command(sh("echo started >> \"$T/marks\"; exec sleep 1000")));

    // A failed campaign: no back-off and no second try without --restart.
    assertThat(runner.awaitExit(WAIT)).hasValue(ExitCodes.LOST);
    assertThat(runners.lines("marks")).containsExactly("hook 1");
    assertThat(offices.leader(OFFICE)).isEmpty();
  }

  @Test
  void hangingOnAcquireHookIsKilledAtItsTimeoutAndTheCommandNeverStarts() throws Exception {
    ExternalCommandRunner runner =
        runners.start(
            builder()
                .hookTimeout(Duration.ofMillis(500))
                .onAcquire("echo $$ >> \"$T/hook\"; exec sleep 1000")
                .command(sh("echo started >> \"$T/marks\"; exec sleep 1000")));
    await().atMost(WAIT).until(() -> !runners.lines("hook").isEmpty());
    long hook = Long.parseLong(runners.lines("hook").get(0));
    Election follower = follower();
    follower.start();

    assertThat(follower.awaitLeadership(WAIT)).isTrue();
    await().atMost(WAIT).until(() -> !running(hook));
    assertThat(runners.lines("marks")).isEmpty();
    assertThat(runner.childPid()).isEmpty();
  }

  @Test
  void stopStopsTheCommandRunsOnLoseAndResigns() throws Exception {
    ExternalCommandRunner runner =
        runners.start(
            builder()
                .command(sh("sleep 1000 & echo $! > \"$T/grandchild\"; exec sleep 1000"))
                .onLose("echo lost >> \"$T/marks\""));
    long grandchild = runners.awaitPid("grandchild");
    long pid = runner.childPid().orElseThrow();
    Election follower = follower();
    follower.start();

    runner.stop();
    runner.stop();

    assertThat(runner.awaitExit(Duration.ZERO)).hasValue(ExitCodes.STOPPED);
    assertThat(running(pid)).isFalse();
    assertThat(running(grandchild)).isFalse();
    assertThat(runners.lines("marks")).containsExactly("lost");
    assertThat(follower.awaitLeadership(WAIT)).isTrue();
  }

  @Test
  void stopBeforeStartFinishesAtOnce() throws Exception {
    ExternalCommandRunner runner = builder().command(ENV_THEN_SLEEP).build();

    runner.close();

    assertThat(runner.awaitExit(Duration.ZERO)).isEqualTo(OptionalInt.of(ExitCodes.STOPPED));
  }

  @Test
  void waitThatRunsOutEndsWith75WithoutRunningAnything() throws Exception {
    Election holder = follower();
    holder.start();
    assertThat(holder.awaitLeadership(WAIT)).isTrue();

    ExternalCommandRunner runner =
        runners.start(builder().waitFor(Duration.ofMillis(300)).command(ENV_THEN_SLEEP));

    assertThat(runner.awaitExit(WAIT)).hasValue(ExitCodes.WAIT_EXPIRED);
    assertThat(runners.lines("env")).isEmpty();
    assertThat(holder.isLeader()).isTrue();
  }

  @Test
  void notWaitingGivesUpAtOnceWhenAnotherLeads() throws Exception {
    Election holder = follower();
    holder.start();
    assertThat(holder.awaitLeadership(WAIT)).isTrue();

    ExternalCommandRunner runner =
        runners.start(builder().waitFor(Duration.ZERO).command(ENV_THEN_SLEEP));

    assertThat(runner.awaitExit(WAIT)).hasValue(ExitCodes.WAIT_EXPIRED);
    assertThat(runners.lines("env")).isEmpty();
    // It left the queue: once the holder resigns, the office is vacant.
    holder.resign();
    assertThat(offices.leader(OFFICE)).isEmpty();
  }

  @Test
  void notWaitingRunsTheCommandWhenTheOfficeIsFree() throws Exception {
    ExternalCommandRunner runner =
        runners.start(builder().waitFor(Duration.ZERO).command(ENV_THEN_SLEEP));

    assertThat(environment()).containsEntry("CONCH_NAME", OFFICE);
    assertThat(runner.awaitExit(Duration.ZERO)).isEmpty();
  }
}
