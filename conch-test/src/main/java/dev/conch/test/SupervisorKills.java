package dev.conch.test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Kills a supervisor with SIGKILL at one point of starting its command, again and again on a host
 * kept busy, and counts the orphans: processes of a try that still run {@link #GRACE} after the
 * kill, when its watchdogs should long have stopped them. Each try's supervisor gets {@code
 * ORPHAN_TRY=<marker>} in its environment, which everything it starts inherits (watchdogs,
 * commands, hooks and what they fork), so a try's processes are found in {@code /proc} by it.
 *
 * <p>The number of tries is a system property, {@code -Dconch.orphanTries=100}, so that the suite
 * runs a short hunt and the long one is a command away.
 */
public final class SupervisorKills {

  /** The environment variable every process of a try carries. */
  public static final String MARKER = "ORPHAN_TRY";

  /** How long a process of a killed supervisor may still run before it counts as an orphan. */
  public static final Duration GRACE = Duration.ofSeconds(5);

  /** The longest a try may take to reach its kill point. */
  private static final Duration REACH_TIMEOUT = Duration.ofSeconds(60);

  private SupervisorKills() {}

  /** The tries per kill point: {@code -Dconch.orphanTries}, else {@code fallback}. */
  public static int tries(int fallback) {
    return Integer.getInteger("conch.orphanTries", fallback);
  }

  /** One try: its number, its own directory, and the marker of its processes. */
  public record Try(int number, Path dir, String marker) {

    /** The supervisor's environment entry that marks the try's processes. */
    public Map<String, String> environment() {
      return Map.of(MARKER, marker);
    }
  }

  /** When to kill: checked again and again, as fast as it can be, while the try runs. */
  @FunctionalInterface
  public interface Point {
    boolean reached(Try attempt, ProcessHandle supervisor);
  }

  /** What a hunt found: the tries whose supervisor was killed, and the orphans each left. */
  public record Report(int killed, Map<Integer, List<String>> orphans) {

    /** How many tries left at least one orphan. */
    public int orphanTries() {
      return orphans.size();
    }
  }

  /**
   * A child of the supervisor that is not a watchdog: the command or a hook, just forked (setsid,
   * the wrapper, or the program itself).
   */
  public static Point afterFork() {
    return (attempt, supervisor) ->
        supervisor
            .children()
            .anyMatch(
                child ->
                    !commandLine(child.pid()).contains("conch-watchdog")
                        && marked(child.pid(), attempt.marker()));
  }

  /** A file of the try's directory exists (a command or hook wrote its first line). */
  public static Point fileExists(String name) {
    return (attempt, supervisor) -> Files.exists(attempt.dir().resolve(name));
  }

  /**
   * Runs {@code tries} tries under {@code root}, each started by {@code start} and killed at {@code
   * point}, with CPU burners beside them; every process is reaped before this returns.
   */
  public static Report hunt(int tries, Path root, Function<Try, Process> start, Point point)
      throws IOException, InterruptedException {
    Map<Integer, List<String>> orphans = new LinkedHashMap<>();
    int killed = 0;
    List<Process> burners = burners();
    try {
      for (int n = 1; n <= tries; n++) {
        Try attempt =
            new Try(n, Files.createDirectories(root.resolve("try-" + n)), root + "/try-" + n);
        Process supervisor = start.apply(attempt);
        try {
          long until = System.nanoTime() + REACH_TIMEOUT.toNanos();
          ProcessHandle handle = supervisor.toHandle();
          while (!point.reached(attempt, handle)) {
            if (!supervisor.isAlive() || System.nanoTime() - until > 0) {
              throw new AssertionError(
                  "try "
                      + n
                      + ": the kill point was not reached"
                      + (supervisor.isAlive() ? " within " + REACH_TIMEOUT : "; supervisor exited")
                      + "; its log: "
                      + Processes.tail(attempt.dir().resolve("jvm.log"), 30));
            }
            Thread.onSpinWait();
          }
        } finally {
          supervisor.destroyForcibly(); // SIGKILL: no shutdown hook runs
          supervisor.waitFor();
        }
        killed++;
        List<String> left = awaitGone(attempt);
        if (!left.isEmpty()) {
          orphans.put(n, left);
        }
      }
    } finally {
      for (Process burner : burners) {
        burner.destroyForcibly();
        burner.waitFor();
      }
    }
    return new Report(killed, orphans);
  }

  /** Waits up to {@link #GRACE} for the try's processes to end; SIGKILLs and lists the rest. */
  private static List<String> awaitGone(Try attempt) throws InterruptedException {
    long until = System.nanoTime() + GRACE.toNanos();
    List<ProcessHandle> left = marked(attempt.marker());
    while (!left.isEmpty() && System.nanoTime() - until < 0) {
      Thread.sleep(20); // polling /proc for the condition, bounded by the grace
      left = marked(attempt.marker());
    }
    List<String> described = new ArrayList<>();
    for (ProcessHandle orphan : left) {
      described.add(orphan.pid() + " " + commandLine(orphan.pid()));
      orphan.destroyForcibly();
    }
    return described;
  }

  /** Half the cores kept busy: the supervisor is preempted often, yet a try stays short. */
  private static List<Process> burners() throws IOException {
    List<Process> burners = new ArrayList<>();
    for (int i = 0; i < Math.max(1, Runtime.getRuntime().availableProcessors() / 2); i++) {
      burners.add(
          new ProcessBuilder("sh", "-c", "while :; do :; done")
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start());
    }
    return burners;
  }

  /** Every running process (zombies aside) whose environment holds the marker. */
  private static List<ProcessHandle> marked(String marker) {
    return ProcessHandle.allProcesses()
        .filter(handle -> handle.pid() != ProcessHandle.current().pid())
        .filter(handle -> marked(handle.pid(), marker) && !zombie(handle.pid()))
        .toList();
  }

  private static boolean marked(long pid, String marker) {
    byte[] entry = (MARKER + "=" + marker).getBytes(StandardCharsets.UTF_8);
    byte[] environ = read(Path.of("/proc", Long.toString(pid), "environ")).orElse(new byte[0]);
    int start = 0;
    for (int i = 0; i <= environ.length; i++) {
      if (i == environ.length || environ[i] == 0) {
        if (Arrays.equals(environ, start, i, entry, 0, entry.length)) {
          return true;
        }
        start = i + 1;
      }
    }
    return false;
  }

  private static boolean zombie(long pid) {
    String stat =
        new String(
            read(Path.of("/proc", Long.toString(pid), "stat")).orElse(new byte[0]),
            StandardCharsets.US_ASCII);
    int close = stat.lastIndexOf(')');
    return close < 0 || close + 2 >= stat.length() || "ZXx".indexOf(stat.charAt(close + 2)) >= 0;
  }

  private static String commandLine(long pid) {
    byte[] bytes = read(Path.of("/proc", Long.toString(pid), "cmdline")).orElse(new byte[0]);
    return new String(bytes, StandardCharsets.UTF_8).replace('\0', ' ').trim();
  }

  private static Optional<byte[]> read(Path file) {
    try {
      return Optional.of(Files.readAllBytes(file));
    } catch (IOException e) {
      return Optional.empty(); // gone while looked at, or not ours to read
    }
  }
}
