package dev.conch.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Child-process plumbing shared by the etcd members and etcdctl: lookup, signals, cleanup. */
final class Processes {

  /** Every child we started that may still run; the shutdown hook kills what is left. */
  private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

  /** Temp dirs of clusters not yet closed; the shutdown hook deletes them after the kills. */
  private static final Set<Path> TEMP_DIRS = ConcurrentHashMap.newKeySet();

  static {
    // One hook for the whole class loader: a test JVM that exits abruptly must not leave etcd
    // members holding ports and temp dirs on a shared machine.
    Runtime.getRuntime()
        .addShutdownHook(new Thread(Processes::destroyAll, "conch-test-process-reaper"));
  }

  private Processes() {}

  /** Starts {@code builder} and keeps the child on the list the shutdown hook kills. */
  static Process start(ProcessBuilder builder) throws IOException {
    Process process = builder.start();
    LIVE.add(process);
    process.onExit().thenRun(() -> LIVE.remove(process));
    return process;
  }

  /** Deletes {@code dir} at JVM exit unless {@link #forgetTempDir(Path)} is called first. */
  static void deleteAtExit(Path dir) {
    TEMP_DIRS.add(dir);
  }

  /** The owner has deleted {@code dir} itself. */
  static void forgetTempDir(Path dir) {
    TEMP_DIRS.remove(dir);
  }

  private static void destroyAll() {
    // SIGKILL also ends a SIGSTOPped process, so paused members need no SIGCONT here.
    for (Process process : LIVE) {
      process.destroyForcibly();
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
    for (Process process : LIVE) {
      awaitExit(process, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
    }
    for (Path dir : TEMP_DIRS) {
      try {
        deleteRecursively(dir);
      } catch (RuntimeException e) {
        // Best effort while the JVM goes down; a leftover temp dir is harmless.
      }
    }
  }

  /**
   * Finds an executable: the path in environment variable {@code envVar}, else {@code name} on the
   * PATH, else {@code /usr/bin/name}.
   */
  static Path binary(String envVar, String name, String debianPackage) {
    String configured = System.getenv(envVar);
    if (configured != null && !configured.isBlank()) {
      Path path = Paths.get(configured);
      if (!Files.isExecutable(path)) {
        throw new IllegalStateException(
            envVar
                + "="
                + configured
                + " is not an executable file; point it at the "
                + name
                + " binary or unset it");
      }
      return path;
    }
    List<Path> candidates = new ArrayList<>();
    String pathVariable = System.getenv("PATH");
    if (pathVariable != null) {
      for (String dir : pathVariable.split(java.io.File.pathSeparator)) {
        if (!dir.isEmpty()) {
          candidates.add(Paths.get(dir, name));
        }
      }
    }
    candidates.add(Paths.get("/usr/bin", name));
    return candidates.stream()
        .filter(Files::isExecutable)
        .findFirst()
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "No '"
                        + name
                        + "' binary found (set "
                        + envVar
                        + ", or put it on the PATH)."
                        + " On Debian/Ubuntu install it with: apt-get install "
                        + debianPackage));
  }

  /**
   * Removes every environment variable starting with {@code prefix} from {@code builder}: etcd and
   * etcdctl read {@code ETCD_*} and {@code ETCDCTL_*} variables as flags and refuse to run when one
   * conflicts with a flag we pass, so a developer's shell must not leak into the tests.
   */
  static ProcessBuilder withoutEnv(ProcessBuilder builder, String prefix) {
    builder.environment().keySet().removeIf(name -> name.startsWith(prefix));
    return builder;
  }

  /** Sends {@code signal} (e.g. "STOP") to {@code pid} with /bin/kill, bounded. */
  static void signal(long pid, String signal) {
    String kill = Files.isExecutable(Paths.get("/bin/kill")) ? "/bin/kill" : "kill";
    ProcessBuilder builder =
        new ProcessBuilder(kill, "-" + signal, Long.toString(pid))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD);
    try {
      Process process = builder.start();
      if (!awaitExit(process, Duration.ofSeconds(5))) {
        process.destroyForcibly();
        throw new IllegalStateException("kill -" + signal + " " + pid + " did not finish in 5 s");
      }
      if (process.exitValue() != 0) {
        throw new IllegalStateException(
            "kill -" + signal + " " + pid + " failed with exit code " + process.exitValue());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Could not run " + kill, e);
    }
  }

  /** Waits at most {@code timeout} for {@code process} to exit; true if it has. */
  static boolean awaitExit(Process process, Duration timeout) {
    try {
      return process.waitFor(Math.max(0, timeout.toMillis()), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return !process.isAlive();
    }
  }

  /** SIGTERM, then SIGKILL if the process outlives {@code grace}; returns once it is reaped. */
  static void terminate(Process process, Duration grace) {
    process.destroy();
    if (!awaitExit(process, grace)) {
      kill(process);
    }
  }

  /** SIGKILL; returns once the process is reaped. */
  static void kill(Process process) {
    process.destroyForcibly();
    if (!awaitExit(process, Duration.ofSeconds(10))) {
      throw new IllegalStateException("Process " + process.pid() + " survived SIGKILL for 10 s");
    }
  }

  /** A loopback port that is free right now and not in {@code taken}. */
  static int freePort(Set<Integer> taken) {
    for (int attempt = 0; attempt < 50; attempt++) {
      try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        int port = socket.getLocalPort();
        if (taken.add(port)) {
          return port;
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Could not find a free loopback port", e);
      }
    }
    throw new IllegalStateException("Could not find a free loopback port in 50 attempts");
  }

  /** The last {@code lines} lines of {@code file}, or a note saying why there are none. */
  static String tail(Path file, int lines) {
    try {
      if (!Files.exists(file)) {
        return "(no log file " + file + ")";
      }
      List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException | UncheckedIOException e) {
      return "(could not read " + file + ": " + e + ")";
    }
  }

  /** Deletes {@code root} and everything under it; quietly does nothing if it is gone. */
  static void deleteRecursively(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Could not delete " + root, e);
    }
  }

  /** Milliseconds left until {@code deadlineNanos} (a {@link System#nanoTime()} value). */
  static long remainingMillis(long deadlineNanos) {
    return TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
  }

  /** Pauses a polling loop briefly; returns false if the thread was interrupted. */
  static boolean pause(long millis) {
    try {
      Thread.sleep(millis);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
