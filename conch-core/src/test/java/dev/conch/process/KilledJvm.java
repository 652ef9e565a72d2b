package dev.conch.process;

import dev.conch.local.LocalOffices;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A JVM that supervises a command (args[1] = "command") or hangs in an on-acquire hook (args[1] =
 * "hook") until it is killed, for {@link SupervisorDeathTest}. Both write their pid and a
 * grandchild's pid to files in args[0].
 */
public final class KilledJvm {

  private KilledJvm() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    String forks = "sleep 1000 & echo $! > \"$T/grandchild\"; echo $$ > \"$T/pid\"; wait";
    ExternalCommandRunner.Builder builder =
        ExternalCommandRunner.builder("jobs", new LocalOffices()::election)
            .environment(Map.of("T", dir.toString()))
            .hookTimeout(Duration.ofMinutes(10))
            .redirectOutput(Redirect.DISCARD)
            .redirectError(Redirect.DISCARD);
    if (args[1].equals("hook")) {
      builder.onAcquire(forks).command(List.of("true"));
    } else {
      builder.command(List.of("sh", "-c", forks));
    }
    builder.build().start();
    Thread.currentThread().join(Duration.ofMinutes(10).toMillis()); // until the test kills us
  }
}
