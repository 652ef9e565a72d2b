package dev.conch.process;

import dev.conch.Durations;
import java.io.File;
import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Runs an on-acquire or on-lose hook: {@code sh -c CMD} in a process group of its own, bounded by
 * the hook timeout. What the hook leaves running in its group is stopped when it returns: nothing a
 * hook starts may outlive the leadership it belongs to.
 */
final class HookCommand {

  /** No bound: about 292 years. */
  private static final Duration FOREVER = Duration.ofNanos(Long.MAX_VALUE);

  private HookCommand() {}

  /**
   * How a hook ended.
   *
   * @param exitCode its exit code (128+N when killed by signal N), or -1 when it did not finish
   * @param problem why it did not finish (timed out, could not start), else {@code null}
   * @param cutAtDeadline whether it was killed because its bound (a lease deadline) came first
   */
  record Outcome(int exitCode, @Nullable String problem, boolean cutAtDeadline) {

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
    return run(name, shellCommand, environment, timeout, () -> FOREVER, killAfter, output, error);
  }

  /**
   * Runs {@code shellCommand} as {@link #run(String, String, Map, Duration, Duration, Redirect,
   * Redirect)} does, and besides kills its group (SIGKILL, no grace) once {@code bound} says no
   * time is left: a bound read again whenever it is reached, as it may move on (a lease renewed).
   * What the hook left behind after it exited, or its SIGTERM grace, is cut to the bound as well.
   */
  static Outcome run(
      String name,
      String shellCommand,
      Map<String, String> environment,
      Duration timeout,
      Supplier<Duration> bound,
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
      return new Outcome(-1, "could not be started: " + e.getMessage(), false);
    }
    long timeoutAt = System.nanoTime() + timeout.toNanos();
    boolean exited = false;
    boolean cut = false;
    try {
      while (!exited) {
        long untilTimeout = timeoutAt - System.nanoTime();
        long untilBound = nanos(bound.get());
        if (untilBound <= 0) {
          cut = true;
          break;
        }
        if (untilTimeout <= 0) {
          break;
        }
        exited = group.process().waitFor(Math.min(untilTimeout, untilBound), TimeUnit.NANOSECONDS);
      }
    } catch (InterruptedException e) {
      group.kill();
      throw e;
    }
    if (cut) {
      group.kill();
      return new Outcome(-1, "killed at its deadline", true);
    }
    // Stops the group after a timeout, and whatever the hook left behind after an exit.
    Duration grace = nanos(bound.get()) < killAfter.toNanos() ? bound.get() : killAfter;
    group.terminate(grace.isNegative() ? Duration.ZERO : grace);
    if (!exited) {
      return new Outcome(-1, "timed out after " + Durations.format(timeout), false);
    }
    return new Outcome(group.process().exitValue(), null, false);
  }

  private static long nanos(Duration duration) {
    try {
      return duration.toNanos();
    } catch (ArithmeticException e) {
      return duration.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }
}
