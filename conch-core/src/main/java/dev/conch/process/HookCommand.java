package dev.conch.process;

import dev.conch.Durations;
import java.io.File;
import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs an on-acquire or on-lose hook: {@code sh -c CMD} in a process group of its own, bounded by
 * the hook timeout. What the hook leaves running in its group is stopped when it returns: nothing a
 * hook starts may outlive the leadership it belongs to.
 */
final class HookCommand {

  private HookCommand() {}

  /**
   * How a hook ended.
   *
   * @param exitCode its exit code (128+N when killed by signal N), or -1 when it did not finish
   * @param problem why it did not finish (timed out, could not start), else {@code null}
   */
  record Outcome(int exitCode, String problem) {

    /** Whether it exited with code 0. */
    boolean succeeded() {
      return problem == null && exitCode == 0;
    }

    /** What happened, for logs and exception messages. */
    String describe() {
      return problem != null ? problem : "exited with code " + exitCode;
    }
  }

  /**
   * Runs {@code shellCommand} and waits for it, at most {@code timeout}; past that its group gets
   * SIGTERM, and SIGKILL after {@code killAfter}.
   *
   * @throws InterruptedException when interrupted; the hook's group was killed at once
   */
  static Outcome run(
      String name,
      String shellCommand,
      Map<String, String> environment,
      Duration timeout,
      Duration killAfter,
      Redirect output,
      Redirect error)
      throws InterruptedException {
    ProcessGroup group;
    try {
      group =
          ProcessGroup.start(
              name,
              List.of("/bin/sh", "-c", shellCommand),
              environment,
              Redirect.from(new File("/dev/null")),
              output,
              error,
              killAfter);
    } catch (IOException e) {
      return new Outcome(-1, "could not be started: " + e.getMessage());
    }
    boolean exited;
    try {
      exited = group.process().waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      group.kill();
      throw e;
    }
    // Stops the group after a timeout, and whatever the hook left behind after an exit.
    group.terminate(killAfter);
    if (!exited) {
      return new Outcome(-1, "timed out after " + Durations.format(timeout));
    }
    return new Outcome(group.process().exitValue(), null);
  }
}
