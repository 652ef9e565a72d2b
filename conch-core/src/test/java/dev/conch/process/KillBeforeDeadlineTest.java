package dev.conch.process;

import static dev.conch.process.Runners.sh;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.FencedElection;
import dev.conch.ScriptedLock;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runner sends SIGKILL no later than the safety margin before the term's lease deadline,
 * whatever kill-after says: a loss noticed late (the process was paused, here a jump of the
 * election's clock) leaves less than kill-after, and the command's SIGTERM grace is cut to fit.
 */
class KillBeforeDeadlineTest {

  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

  @TempDir Path dir;
  private Runners runners;

  /** The election's clock: real time plus the jumps the test makes. */
  private final AtomicLong jumped = new AtomicLong();

  private final ScriptedLock lock = new ScriptedLock("jobs", this::now);

  @BeforeEach
  void runners() {
    runners = new Runners(dir);
  }

  @AfterEach
  void close() {
    runners.close();
  }

  private long now() {
    return System.nanoTime() + jumped.get();
  }

  @Test
  void lossNoticedTwoSecondsBeforeTheDeadlineKillsACommandThatIgnoresSigtermInTime()
      throws Exception {
    ExternalCommandRunner runner =
        runners.start(
            runners
                .builder(
                    "jobs",
                    options -> new FencedElection(lock, options, this::now, Clock.systemUTC()))
                .killAfter(Duration.ofSeconds(5))
                // Ignores SIGTERM: only SIGKILL ends it.
                .command(sh("trap '' TERM; echo $$ > \"$T/pid\"; while :; do sleep 0.1; done")));
    long pid = runners.awaitPid("pid");

    // Paused as by a long GC: the election wakes 2 s before its deadline (10 s after the win, never
    // renewed), well inside its 6 s loss lead.
    jumped.set(lock.validUntil - 2 * SECOND - System.nanoTime());
    long noticed = System.nanoTime();
    lock.wake();

    // kill-after would wait 5 s; the deadline leaves 2 s - 500 ms margin.
    await().atMost(Duration.ofSeconds(10)).until(() -> !Runners.running(pid));
    long killedAfter = System.nanoTime() - noticed;
    assertThat(killedAfter).isLessThan(4 * SECOND);
    assertThat(runner.awaitExit(Duration.ofSeconds(10))).hasValue(ExitCodes.LOST);
  }

  private ExternalCommandRunner startWithHook(String onAcquire) {
    return runners.start(
        runners
            .builder(
                "jobs", options -> new FencedElection(lock, options, this::now, Clock.systemUTC()))
            .onAcquire(onAcquire)
            .command(sh("echo $$ > \"$T/pid\"; exec sleep 1000")));
  }

  /** Jumps the election's clock 1 s before its deadline: inside the 2 s loss lead. */
  private void intoTheLossLead() {
    jumped.set(lock.validUntil - SECOND - System.nanoTime());
  }

  @Test
  void commandIsNotStartedForATermThatTurnedInvalidWhileTheOnAcquireHookRan() throws Exception {
    ExternalCommandRunner runner =
        startWithHook("echo $$ >> \"$T/hook\"; while [ ! -e \"$T/go\" ]; do sleep 0.01; done");
    await().atMost(Runners.WAIT).until(() -> !runners.lines("hook").isEmpty());

    // The hook returns just as the loss lead began, before the election's timer saw it: the term
    // is no longer valid, and its command must not start even for a moment.
    intoTheLossLead();
    runners.touch("go");

    assertThat(runner.awaitExit(Runners.WAIT)).hasValue(ExitCodes.LOST);
    assertThat(runners.lines("pid")).as("the command ran").isEmpty();
  }

  @Test
  void lossDuringTheOnAcquireHookEndsARunnerWithoutRestartWith70() throws Exception {
    ExternalCommandRunner runner = startWithHook("echo $$ >> \"$T/hook\"; exec sleep 1000");
    long hook = runners.awaitPid("hook");

    intoTheLossLead();
    lock.wake();

    // Given up by the election: the hook is killed, the command never starts, and the runner
    // ends as after any loss instead of campaigning again.
    assertThat(runner.awaitExit(Runners.WAIT)).hasValue(ExitCodes.LOST);
    // SIGKILL went out; the kernel may take a moment to end it (seen in a clean-clone CI run).
    await().atMost(Duration.ofSeconds(2)).until(() -> !Runners.running(hook));
    assertThat(runners.lines("hook")).as("on-acquire hooks run").hasSize(1);
    assertThat(runners.lines("pid")).as("the command ran").isEmpty();
  }
}
