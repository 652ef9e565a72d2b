package dev.conch.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The plumbing a database server launcher shares: a temp dir, a bounded setup command, a server
 * process whose log says when it is ready, a stop by signal that ends in a reaped process.
 */
final class DatabaseProcess {

  /** Thrown when the server exited because its port was taken; the launcher retries. */
  static final class PortClashException extends IllegalStateException {
    PortClashException(String message) {
      super(message);
    }
  }

  private final Path log;
  private final Process process;

  private DatabaseProcess(Path log, Process process) {
    this.log = log;
    this.process = process;
  }

  /** Whether the JVM runs as root, where database servers refuse or need to be told. */
  static boolean runningAsRoot() {
    return "root".equals(System.getProperty("user.name"));
  }

  /** Makes {@code dir} and everything under it belong to the system user {@code user}. */
  static void chown(Path dir, String user) {
    try {
      UserPrincipalLookupService names = dir.getFileSystem().getUserPrincipalLookupService();
      GroupPrincipal group = names.lookupPrincipalByGroupName(user);
      try (Stream<Path> paths = Files.walk(dir)) {
        for (Path path : paths.toList()) {
          PosixFileAttributeView view =
              Files.getFileAttributeView(path, PosixFileAttributeView.class);
          view.setOwner(names.lookupPrincipalByName(user));
          view.setGroup(group);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Could not give " + dir + " to the system user '" + user + "' (does it exist?)", e);
    }
  }

  /** {@code command} run as {@code user} through util-linux's setpriv when we are root. */
  static List<String> asUser(String user, List<String> command) {
    if (!runningAsRoot()) {
      return command;
    }
    List<String> wrapped =
        new ArrayList<>(
            List.of(
                Processes.binary("CONCH_SETPRIV", "setpriv", "util-linux").toString(),
                "--reuid=" + user,
                "--regid=" + user,
                "--init-groups"));
    wrapped.addAll(command);
    return wrapped;
  }

  /**
   * Runs {@code command} to completion within {@code timeout}, its output into {@code log}.
   *
   * @throws IllegalStateException when it fails or outlives the timeout, with the log's tail
   */
  static void runSetup(String what, List<String> command, Path log, Duration timeout) {
    try {
      Process setup =
          Processes.start(
              new ProcessBuilder(command)
                  .redirectErrorStream(true)
                  .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())));
      if (!Processes.awaitExit(setup, timeout)) {
        Processes.kill(setup);
        throw new IllegalStateException(
            what + " did not finish in " + timeout + "; " + log + ":\n" + Processes.tail(log, 30));
      }
      if (setup.exitValue() != 0) {
        throw new IllegalStateException(
            what
                + " failed with exit code "
                + setup.exitValue()
                + " ("
                + String.join(" ", command)
                + "); "
                + log
                + ":\n"
                + Processes.tail(log, 30));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Could not run " + command.get(0), e);
    }
  }

  /**
   * Starts the server {@code command}, its output into {@code log}, and waits until the log holds
   * {@code readyLine}.
   *
   * @throws PortClashException when it exited and its log holds {@code clashLine}
   * @throws IllegalStateException when it exited or was not ready within {@code timeout}
   */
  static DatabaseProcess start(
      String name,
      List<String> command,
      Path log,
      String readyLine,
      String clashLine,
      Duration timeout) {
    Process process;
    try {
      process =
          Processes.start(
              new ProcessBuilder(command)
                  .redirectErrorStream(true)
                  .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())));
    } catch (IOException e) {
      throw new UncheckedIOException("Could not start " + command.get(0), e);
    }
    DatabaseProcess server = new DatabaseProcess(log, process);
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!server.logContains(readyLine)) {
      if (!process.isAlive()) {
        String message =
            name + " exited with code " + process.exitValue() + "; " + log + ":\n" + server.tail();
        throw server.logContains(clashLine)
            ? new PortClashException(message)
            : new IllegalStateException(message);
      }
      if (Processes.remainingMillis(deadline) <= 0 || !Processes.pause(20)) {
        Processes.kill(process);
        throw new IllegalStateException(
            name + " was not ready within " + timeout + "; " + log + ":\n" + server.tail());
      }
    }
    return server;
  }

  /** Sends {@code signal}, waits up to {@code grace} for the exit, then kills; returns reaped. */
  void stop(String signal, Duration grace) {
    if (process.isAlive()) {
      Processes.signal(process.pid(), signal);
      if (!Processes.awaitExit(process, grace)) {
        Processes.kill(process);
      }
    }
  }

  /** The last lines of the server's log. */
  String tail() {
    return Processes.tail(log, 30);
  }

  private boolean logContains(String line) {
    try {
      return Files.exists(log)
          && new String(Files.readAllBytes(log), StandardCharsets.UTF_8).contains(line);
    } catch (IOException e) {
      return false;
    }
  }
}
