package dev.conch.process;

import dev.conch.local.LocalOffices;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A JVM that starts a runner and exits without stopping it, for {@link ShutdownTest}: the runner's
 * shutdown hook must stop the command (and run on-lose) before the JVM is gone.
 */
public final class ExitingJvm {

  private ExitingJvm() {}

  /** Runs a command under a runner, waits until it runs, then exits: args[0] is the directory. */
  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    ExternalCommandRunner runner =
        ExternalCommandRunner.builder("jobs", new LocalOffices()::election)
            .killAfter(Duration.ofSeconds(1))
            .environment(Map.of("T", dir.toString()))
            .redirectOutput(Redirect.DISCARD)
            .redirectError(Redirect.DISCARD)
            .onLose("echo lost >> \"$T/marks\"")
            .command(
                List.of(
                    "sh",
                    "-c",
                    "sleep 1000 & echo $! > \"$T/grandchild\"; echo $$ > \"$T/pid\"; wait"))
            .build();
    runner.start();
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!Files.exists(dir.resolve("pid")) && System.nanoTime() < deadline) {
      Thread.sleep(20); // a main method polling a file, not a test waiting for a state
    }
    System.exit(Files.exists(dir.resolve("pid")) ? 0 : 1);
  }
}
