package dev.conch.cli;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Runs the real launcher, {@code bin/conch}, in a real process: what a script would do. The
 * environment is the test's, less every {@code CONCH_*} variable, plus what a test sets.
 */
final class Conch {

  /** Long enough for a cold JVM on a busy two-core machine; conch's own bounds are shorter. */
  static final Duration RUN_TIMEOUT = Duration.ofSeconds(30);

  private final Map<String, String> env = new HashMap<>();
  private final String endpoints;
  private Path launcher = launcher();

  private Conch(String endpoints) {
    this.endpoints = endpoints;
  }

  /** A launcher whose commands get {@code --endpoints endpoints} (null: none added). */
  static Conch at(String endpoints) {
    return new Conch(endpoints);
  }

  /** The same launcher with one more environment variable. */
  Conch env(String name, String value) {
    Conch copy = copy();
    copy.env.put(name, value);
    return copy;
  }

  /** The same, started as {@code path} (a link to the launcher, for one). */
  Conch via(Path path) {
    Conch copy = copy();
    copy.launcher = path;
    return copy;
  }

  private Conch copy() {
    Conch copy = new Conch(endpoints);
    copy.env.putAll(env);
    copy.launcher = launcher;
    return copy;
  }

  /** Runs {@code conch <args>} to the end. */
  Result run(String... args) {
    try (Running process = start(args)) {
      if (!process.awaitExit(RUN_TIMEOUT)) {
        throw new AssertionError(
            "conch "
                + String.join(" ", args)
                + " still runs after "
                + RUN_TIMEOUT
                + "; stderr: "
                + process.errorLines());
      }
      return process.result();
    }
  }

  /** Starts {@code conch <args>} in the background; close it to end and reap it. */
  Running start(String... args) {
    return start(List.of(), args);
  }

  /**
   * Starts {@code conch <args>} as a non-interactive shell starts a background job ({@code conch
   * ... &} in a script): with SIGINT ignored, which the JVM would keep.
   */
  Running startWithSigintIgnored(String... args) {
    return start(List.of("bash", "-c", "trap '' INT; exec \"$@\"", "sigint-ignored"), args);
  }

  private Running start(List<String> prefix, String... args) {
    List<String> command = new ArrayList<>(prefix);
    command.add(launcher.toString());
    List<String> given = List.of(args);
    int dashes = given.indexOf("--");
    List<String> own = dashes < 0 ? given : given.subList(0, dashes);
    command.addAll(own);
    boolean chosen = own.stream().anyMatch(arg -> arg.startsWith("--endpoints"));
    if (endpoints != null && !chosen && !own.isEmpty() && own.get(0).equals("elect")) {
      command.add("--endpoints");
      command.add(endpoints);
    }
    if (dashes >= 0) {
      command.addAll(given.subList(dashes, given.size()));
    }
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().keySet().removeIf(name -> name.startsWith("CONCH_"));
    builder.environment().putAll(env);
    builder.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    try {
      return new Running(builder.start(), String.join(" ", command));
    } catch (IOException e) {
      throw new UncheckedIOException("could not start " + command, e);
    }
  }

  static Path launcher() {
    Path path = Path.of(System.getProperty("conch.launcher", "../bin/conch"));
    if (!Files.isExecutable(path)) {
      throw new IllegalStateException(path + " is not executable; run the tests with Maven");
    }
    return path;
  }

  /** What a finished run left: its status and both streams. */
  record Result(int status, String stdout, String stderr) {
    List<String> lines() {
      return stdout.isEmpty() ? List.of() : List.of(stdout.split("\n"));
    }
  }

  /** A conch process whose output lines are collected as they come. */
  static final class Running implements AutoCloseable {
    private final Process process;
    private final String description;
    private final List<String> lines = new ArrayList<>();
    private final List<String> errorLines = new ArrayList<>();
    private final CompletableFuture<Void> outDone;
    private final CompletableFuture<Void> errDone;

    private Running(Process process, String description) {
      this.process = process;
      this.description = description;
      this.outDone = read(process.getInputStream(), lines);
      this.errDone = read(process.getErrorStream(), errorLines);
    }

    long pid() {
      return process.pid();
    }

    boolean isAlive() {
      return process.isAlive();
    }

    synchronized List<String> lines() {
      return List.copyOf(lines);
    }

    synchronized List<String> errorLines() {
      return List.copyOf(errorLines);
    }

    /** Waits for a stdout line matching {@code condition}; the first such line since the start. */
    String awaitLine(Predicate<String> condition, Duration timeout) {
      return await(lines, condition, timeout, "stdout");
    }

    /** Waits for a stderr line matching {@code condition}. */
    String awaitErrorLine(Predicate<String> condition, Duration timeout) {
      return await(errorLines, condition, timeout, "stderr");
    }

    private synchronized String await(
        List<String> source, Predicate<String> condition, Duration timeout, String name) {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (true) {
        for (String line : source) {
          if (condition.test(line)) {
            return line;
          }
        }
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        boolean ended = (source == lines ? outDone : errDone).isDone();
        if (left <= 0 || ended) {
          throw new AssertionError(
              "no matching "
                  + name
                  + " line from "
                  + description
                  + (ended ? " (output ended)" : " within " + timeout)
                  + "; stdout: "
                  + lines
                  + "; stderr: "
                  + errorLines);
        }
        try {
          wait(left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new AssertionError(e);
        }
      }
    }

    boolean awaitExit(Duration timeout) {
      try {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }

    /** Sends {@code signal} (e.g. "TERM") to the conch process. */
    void signal(String signal) {
      try {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid())).start();
        kill.waitFor(5, TimeUnit.SECONDS);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    /** The finished run; call after it exited. */
    Result result() {
      CompletableFuture.allOf(outDone, errDone).completeOnTimeout(null, 5, TimeUnit.SECONDS).join();
      synchronized (this) {
        return new Result(
            process.exitValue(),
            lines.isEmpty() ? "" : String.join("\n", lines) + "\n",
            errorLines.isEmpty() ? "" : String.join("\n", errorLines) + "\n");
      }
    }

    /** SIGTERM, SIGKILL after 10 s, and reaps. */
    @Override
    public void close() {
      if (process.isAlive()) {
        process.destroy();
        if (!awaitExit(Duration.ofSeconds(10))) {
          process.destroyForcibly();
          awaitExit(Duration.ofSeconds(10));
        }
      }
      CompletableFuture.allOf(outDone, errDone).completeOnTimeout(null, 5, TimeUnit.SECONDS).join();
    }

    @Override
    public String toString() {
      return description + " (pid " + pid() + ")";
    }

    private CompletableFuture<Void> read(InputStream in, List<String> into) {
      CompletableFuture<Void> done = new CompletableFuture<>();
      Thread reader =
          new Thread(
              () -> {
                try (BufferedReader text =
                    new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                  for (String line; (line = text.readLine()) != null; ) {
                    synchronized (this) {
                      into.add(line);
                      notifyAll();
                    }
                  }
                } catch (IOException e) {
                  // The stream ends with the process; what was read is the output.
                } finally {
                  synchronized (this) {
                    done.complete(null);
                    notifyAll();
                  }
                }
              },
              "conch-test-" + process.pid());
      reader.setDaemon(true);
      reader.start();
      return done;
    }
  }
}
