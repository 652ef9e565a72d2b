package dev.conch.process;

import static dev.conch.process.Runners.running;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Nothing a runner started outlives a JVM that exits normally without stopping the runner. */
class ShutdownTest {

  @TempDir Path dir;

  @Test
  void jvmExitStopsTheCommandAndItsGrandchildrenAndRunsOnLose() throws Exception {
    Process jvm = Runners.startJvm(ExitingJvm.class, dir, dir.toString());
    try {
      assertThat(jvm.waitFor(60, TimeUnit.SECONDS)).as("the JVM exits").isTrue();
      Runners files = new Runners(dir);
      assertThat(jvm.exitValue()).as(String.join("\n", files.lines("jvm.log"))).isZero();

      long pid = files.awaitPid("pid");
      long grandchild = files.awaitPid("grandchild");
      assertThat(running(pid)).isFalse();
      assertThat(running(grandchild)).isFalse();
      assertThat(files.lines("marks")).containsExactly("lost");
    } finally {
      jvm.destroyForcibly();
    }
  }
}
