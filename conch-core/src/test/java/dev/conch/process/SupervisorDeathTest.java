package dev.conch.process;

import static dev.conch.process.Runners.running;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.test.SupervisorKills;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A supervisor killed with SIGKILL runs no shutdown hook: its watchdog must still kill the command
 * (or hook) and everything it forked within a second, because a successor takes over after the TTL.
 */
class SupervisorDeathTest {

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"command", "hook"})
  void killedSupervisorTakesItsProcessGroupWithItWithinASecond(String what) throws Exception {
    Process jvm = Runners.startJvm(KilledJvm.class, dir, dir.toString(), what);
    try {
      Runners files = new Runners(dir);
      long pid = files.awaitPid("pid");
      long grandchild = files.awaitPid("grandchild");
      assertThat(running(pid)).isTrue();

      jvm.destroyForcibly(); // SIGKILL: no shutdown hook runs
      assertThat(jvm.waitFor(10, TimeUnit.SECONDS)).isTrue();

      await()
          .atMost(Duration.ofSeconds(1))
          .pollInterval(Duration.ofMillis(20))
          .until(() -> !running(pid) && !running(grandchild));
    } finally {
      jvm.destroyForcibly();
    }
  }

  /**
   * SIGKILL at the worst moments of a start, on a host kept busy: right after the fork, once the
   * command's first line ran, once the on-acquire hook's first line ran. Nothing the supervisor
   * started may outlive it (a watchdog that learnt its group too late exits and leaves the command
   * running forever, beside the successor). {@code -Dconch.orphanTries=100} for the long run.
   */
  @ParameterizedTest
  @CsvSource({"after the fork, command", "after the first line, command", "during the hook, hook"})
  void supervisorKilledAtAnyPointOfAStartLeavesNoOrphan(String point, String what)
      throws Exception {
    SupervisorKills.Point when =
        point.equals("after the fork")
            ? SupervisorKills.afterFork()
            : SupervisorKills.fileExists("pid");

    SupervisorKills.Report report =
        SupervisorKills.hunt(
            SupervisorKills.tries(5),
            dir,
            attempt -> {
              try {
                return Runners.startJvm(
                    KilledJvm.class,
                    attempt.dir(),
                    attempt.environment(),
                    attempt.dir().toString(),
                    what);
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            },
            when);

    // The figure docs/runner.md quotes, for the long run.
    System.out.printf(
        "supervisors killed %s: %d, orphaned: %d%n", point, report.killed(), report.orphanTries());
    assertThat(report.orphans())
        .as("orphans of %d supervisors killed %s", report.killed(), point)
        .isEmpty();
  }
}
