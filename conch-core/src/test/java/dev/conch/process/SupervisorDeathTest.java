package dev.conch.process;

import static dev.conch.process.Runners.running;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
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
}
