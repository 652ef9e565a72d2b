package dev.conch.test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Runs the real {@code etcdctl} (API v3) against given endpoints, to prove that what conch writes
 * is what etcd's own tools read, and the other way round.
 *
 * <p>The binary is {@code $ETCDCTL_BIN}, else {@code etcdctl} on the PATH, else {@code
 * /usr/bin/etcdctl} (Debian package {@code etcd-client}). It runs with {@code ETCDCTL_API=3} and no
 * other {@code ETCD*} environment variables, so pass every option as a flag.
 */
public final class Etcdctl {

  private Etcdctl() {}

  /**
   * Outcome of one etcdctl run.
   *
   * @param exitCode the process's exit code, or {@link #TIMED_OUT} if it was killed at the timeout
   * @param stdout everything it wrote to standard output
   * @param stderr everything it wrote to standard error, plus a last line if it timed out
   */
  public record Result(int exitCode, String stdout, String stderr) {

    /** Exit code reported for a run that outlived its timeout and was killed. */
    public static final int TIMED_OUT = -1;

    /** Whether etcdctl exited with code 0. */
    public boolean succeeded() {
      return exitCode == 0;
    }

    /** Whether etcdctl outlived its timeout and was killed. */
    public boolean timedOut() {
      return exitCode == TIMED_OUT;
    }
  }

  /**
   * Runs {@code etcdctl --endpoints=<endpoints> <args>} to completion.
   *
   * <p>If it runs longer than {@code timeout} it is killed and the result has exit code {@link
   * Result#TIMED_OUT} and says so on stderr. Give etcdctl its own shorter {@code --command-timeout}
   * and {@code --dial-timeout} when a failure is the expected outcome.
   */
  public static Result run(String endpoints, Duration timeout, String... args) {
    Process process = launch(endpoints, args);
    CompletableFuture<String> stdout = readAll(process.getInputStream(), "out");
    CompletableFuture<String> stderr = readAll(process.getErrorStream(), "err");
    boolean exited = Processes.awaitExit(process, timeout);
    if (!exited) {
      Processes.kill(process);
    }
    String err = join(stderr);
    if (!exited) {
      err +=
          "etcdctl "
              + String.join(" ", args)
              + " did not finish within "
              + timeout
              + " and was killed\n";
    }
    return new Result(exited ? process.exitValue() : Result.TIMED_OUT, join(stdout), err);
  }

  /**
   * Starts {@code etcdctl --endpoints=<endpoints> <args>} in the background, e.g. {@code "elect",
   * "billing", "node-1"} or {@code "watch", "--prefix", "/conch"}, collecting its output lines.
   */
  public static Background start(String endpoints, String... args) {
    return new Background(launch(endpoints, args), args);
  }

  private static Process launch(String endpoints, String... args) {
    Path etcdctl = Processes.binary("ETCDCTL_BIN", "etcdctl", "etcd-client");
    List<String> command = new ArrayList<>();
    command.add(etcdctl.toString());
    command.add("--endpoints=" + endpoints);
    command.addAll(Arrays.asList(args));
    ProcessBuilder builder =
        Processes.withoutEnv(new ProcessBuilder(command), "ETCD")
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    builder.environment().put("ETCDCTL_API", "3");
    try {
      return Processes.start(builder);
    } catch (IOException e) {
      throw new UncheckedIOException("Could not start " + command, e);
    }
  }

  private static CompletableFuture<String> readAll(InputStream in, String stream) {
    StringBuilder text = new StringBuilder();
    return readLines(in, "conch-etcdctl-" + stream, line -> text.append(line).append('\n'))
        .thenApply(done -> text.toString());
  }

  /** Reads {@code in} line by line on a daemon thread; the future completes at end of stream. */
  static CompletableFuture<Void> readLines(InputStream in, String threadName, Consumer<String> to) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader lines =
                  new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String line; (line = lines.readLine()) != null; ) {
                  to.accept(line);
                }
              } catch (IOException e) {
                // The stream closes when the process dies; what was read so far is the output.
              } finally {
                done.complete(null);
              }
            },
            threadName);
    reader.setDaemon(true);
    reader.start();
    return done;
  }

  private static String join(CompletableFuture<String> output) {
    try {
      // The pipe reaches end of stream once the process is gone; the bound guards a grandchild
      // that might still hold it open.
      return output.get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      return "(output not available: " + e + ")\n";
    }
  }

  /**
   * An etcdctl process running in the background, such as {@code elect} or {@code watch}, whose
   * output lines are collected as they arrive. Close it to end the process.
   */
  public static final class Background implements AutoCloseable {

    private final Process process;
    private final String description;
    private final List<String> lines = new ArrayList<>();
    private final List<String> errorLines = new ArrayList<>();
    private final CompletableFuture<Void> stdoutDone;
    private final CompletableFuture<Void> stderrDone;

    private Background(Process process, String[] args) {
      this.process = process;
      this.description = "etcdctl " + String.join(" ", args);
      this.stdoutDone = readLines(process.getInputStream(), name("out"), this::addLine);
      this.stderrDone = readLines(process.getErrorStream(), name("err"), this::addErrorLine);
      // Wakes awaitLine when output ends, so it can fail at once instead of at its deadline.
      stdoutDone.thenRun(this::wakeWaiters);
    }

    /** The lines etcdctl has written to stdout so far, in order (a snapshot). */
    public synchronized List<String> lines() {
      return List.copyOf(lines);
    }

    /** The lines etcdctl has written to stderr so far, in order (a snapshot). */
    public synchronized List<String> errorLines() {
      return List.copyOf(errorLines);
    }

    /**
     * Waits for a stdout line matching {@code condition}, returning the first such line seen since
     * the start, including lines that arrived before this call.
     *
     * @throws AssertionError at the deadline or when etcdctl's output ends first, listing every
     *     line seen on stdout and stderr
     */
    public synchronized String awaitLine(Predicate<String> condition, Duration timeout) {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (true) {
        for (String line : lines) {
          if (condition.test(line)) {
            return line;
          }
        }
        long left = Processes.remainingMillis(deadline);
        if (left <= 0 || stdoutDone.isDone()) {
          String why = stdoutDone.isDone() ? "its output ended" : "within " + timeout;
          throw new AssertionError(
              "No matching line from "
                  + description
                  + " ("
                  + why
                  + "); stdout: "
                  + lines
                  + ", stderr: "
                  + errorLines);
        }
        try {
          wait(left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new AssertionError("Interrupted waiting for a line from " + description, e);
        }
      }
    }

    /** Process id of the etcdctl process. */
    public long pid() {
      return process.pid();
    }

    /** Whether etcdctl is still running. */
    public boolean isAlive() {
      return process.isAlive();
    }

    /** Waits at most {@code timeout} for etcdctl to exit; true if it has. */
    public boolean awaitExit(Duration timeout) {
      return Processes.awaitExit(process, timeout);
    }

    /** Sends SIGINT, as Ctrl-C would: {@code etcdctl elect} then resigns and exits. */
    public void interrupt() {
      if (process.isAlive()) {
        Processes.signal(process.pid(), "INT");
      }
    }

    /** Sends SIGTERM, then SIGKILL if etcdctl is still there after 5 s, and waits until reaped. */
    @Override
    public void close() {
      if (process.isAlive()) {
        Processes.terminate(process, Duration.ofSeconds(5));
      }
      CompletableFuture.allOf(stdoutDone, stderrDone)
          .completeOnTimeout(null, 5, TimeUnit.SECONDS)
          .join();
    }

    @Override
    public String toString() {
      return description + " (pid " + process.pid() + ")";
    }

    private String name(String stream) {
      return "conch-etcdctl-" + process.pid() + "-" + stream;
    }

    private synchronized void addLine(String line) {
      lines.add(line);
      notifyAll();
    }

    private synchronized void addErrorLine(String line) {
      errorLines.add(line);
    }

    private synchronized void wakeWaiters() {
      notifyAll();
    }
  }
}
