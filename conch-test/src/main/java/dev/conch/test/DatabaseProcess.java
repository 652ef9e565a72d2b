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
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.IntFunction;
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

  private static final int PORT_ATTEMPTS = 3;

  private final Path log;
  private final Process process;
  private final int port;

  private DatabaseProcess(Path log, Process process, int port) {
    this.log = log;
    this.process = process;
    this.port = port;
  }

  /**
   * Creates a temp dir named {@code prefix...} for a server (deleted at exit), and sets the server
   * up in it: when {@code setUp} fails, the dir is deleted before the failure goes on.
   */
  static <T> T inTempDir(String prefix, String server, Function<Path, T> setUp) {
    Path dir;
    try {
      dir = Files.createTempDirectory(prefix);
    } catch (IOException e) {
      throw new UncheckedIOException("Could not create a temp dir for " + server, e);
    }
    Processes.deleteAtExit(dir);
    try {
      return setUp.apply(dir);
    } catch (RuntimeException e) {
      delete(dir);
      throw e;
    }
  }

  private static void delete(Path dir) {
    Processes.deleteRecursively(dir);
    Processes.forgetTempDir(dir);
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
   * Starts the server {@code command} for a free loopback port, as {@link #start} does, and again
   * for another port (up to three in all) when its log says the port was taken meanwhile.
   */
  static DatabaseProcess startOnFreePort(
      String name,
      IntFunction<List<String>> command,
      Path log,
      String readyLine,
      String clashLine,
      Duration timeout) {
    Set<Integer> taken = new HashSet<>();
    for (int attempt = 1; ; attempt++) {
      int port = Processes.freePort(taken);
      try {
        return start(name, command.apply(port), port, log, readyLine, clashLine, timeout);
      } catch (PortClashException e) {
        if (attempt == PORT_ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  /**
   * Starts the server {@code command}, listening on {@code port}, its output into {@code log}, and
   * waits until the log holds {@code readyLine}.
   *
   * @throws PortClashException when it exited and its log holds {@code clashLine}
   * @throws IllegalStateException when it exited or was not ready within {@code timeout}
   */
  private static DatabaseProcess start(
      String name,
      List<String> command,
      int port,
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
    DatabaseProcess server = new DatabaseProcess(log, process, port);
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

  /** The loopback port the server listens on. */
  int port() {
    return port;
  }

  /** The server's log file. */
  Path log() {
    return log;
  }

  /**
   * Sends {@code signal}, waits up to {@code grace} for the exit, then kills; returns reaped, and
   * deletes the server's {@code dir}.
   */
  void stop(String signal, Duration grace, Path dir) {
    try {
      if (process.isAlive()) {
        Processes.signal(process.pid(), signal);
        if (!Processes.awaitExit(process, grace)) {
          Processes.kill(process);
        }
      }
    } finally {
      delete(dir);
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
