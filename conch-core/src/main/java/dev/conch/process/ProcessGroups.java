package dev.conch.process;

import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the JVM lacks for process groups: {@code setsid} to start one, {@code kill} to signal one,
 * {@code /proc} to see who is in one, and a shutdown hook so that nothing started by a runner
 * outlives a JVM that exits normally.
 */
final class ProcessGroups {

  private static final Logger log = LoggerFactory.getLogger(ProcessGroups.class);

  /** The longest a {@code kill} command may take; it only makes one system call. */
  private static final Duration KILL_COMMAND_TIMEOUT = Duration.ofSeconds(2);

  private static final Path PROC = Paths.get("/proc");

  /** Enough of a stat line for the fields read: the command name in it is at most 16 bytes. */
  private static final int STAT_BYTES = 512;

  private static final Optional<Path> SETSID = find("setsid");
  private static final Optional<Path> KILL = find("kill");
  private static final boolean PROC_READABLE = Files.isReadable(PROC.resolve("self/stat"));

  /** Groups that may still have a member running. */
  private static final Set<ProcessGroup> LIVE = ConcurrentHashMap.newKeySet();

  /** Runners not yet finished: stopped gracefully (hand-over, on-lose) before groups are killed. */
  private static final Set<Runnable> STOPPERS = ConcurrentHashMap.newKeySet();

  static {
    if (SETSID.isEmpty()) {
      log.warn(
          "setsid (util-linux) not found: commands run in the JVM's process group and are"
              + " stopped through their descendants only");
    }
    Runtime.getRuntime()
        .addShutdownHook(new Thread(ProcessGroups::shutdown, "conch-runner-shutdown"));
  }

  private ProcessGroups() {}

  /** {@code setsid} from util-linux, when installed. */
  static Optional<Path> setsid() {
    return SETSID;
  }

  /** Whether {@code /proc} can tell who belongs to a process group. */
  static boolean hasProc() {
    return PROC_READABLE;
  }

  /**
   * Sends {@code signal} (TERM, KILL) to every process in group {@code pgid}.
   *
   * @return whether the signal was delivered (false when the group is empty or not yet formed)
   */
  static boolean signalGroup(long pgid, String signal) {
    if (KILL.isEmpty()) {
      return false;
    }
    ProcessBuilder kill =
        new ProcessBuilder(KILL.get().toString(), "-s", signal, "--", "-" + pgid)
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(ProcessBuilder.Redirect.DISCARD);
    try {
      Process process = kill.start();
      boolean interrupted = false;
      try {
        while (true) {
          try {
            if (!process.waitFor(KILL_COMMAND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
              process.destroyForcibly();
              return false;
            }
            return process.exitValue() == 0;
          } catch (InterruptedException e) {
            // A signal half-sent is worse than a short wait: finish, then keep the interrupt.
            interrupted = true;
          }
        }
      } finally {
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
    } catch (IOException e) {
      log.warn("could not run {} to signal process group {}: {}", KILL.get(), pgid, e.toString());
      return false;
    }
  }

  /**
   * The processes of group {@code pgid} that still run (zombies excluded), read from /proc. With
   * plain streams and a byte buffer: a stop reads it once after the command exits, in a JVM that
   * has not run this before, and NIO's file reads cost several times as much there.
   */
  static Set<Long> members(long pgid) {
    Set<Long> found = new HashSet<>();
    String[] entries = PROC.toFile().list();
    if (entries == null) {
      log.debug("could not list /proc");
      return found;
    }
    byte[] buffer = new byte[STAT_BYTES];
    for (String entry : entries) {
      if (entry.isEmpty() || entry.charAt(0) < '0' || entry.charAt(0) > '9') {
        continue;
      }
      Stat stat = stat(entry, buffer);
      if (stat != null && stat.pgrp == pgid && stat.running()) {
        found.add(stat.pid);
      }
    }
    return found;
  }

  /**
   * Whether process {@code pid} runs. A zombie does not: it can no longer act, and where PID 1 does
   * not reap orphans (some containers) it would otherwise look alive forever.
   */
  static boolean running(long pid) {
    if (!hasProc()) {
      return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }
    Stat stat = stat(Long.toString(pid), new byte[STAT_BYTES]);
    return stat != null && stat.running();
  }

  /** The process group of {@code pid}, or -1 when it is gone or /proc cannot tell. */
  static long groupOf(long pid) {
    Stat stat = stat(Long.toString(pid), new byte[STAT_BYTES]);
    return stat == null ? -1 : stat.pgrp;
  }

  static void register(ProcessGroup group) {
    LIVE.add(group);
  }

  static void unregister(ProcessGroup group) {
    LIVE.remove(group);
  }

  static void registerStopper(Runnable stopper) {
    STOPPERS.add(stopper);
  }

  static void unregisterStopper(Runnable stopper) {
    STOPPERS.remove(stopper);
  }

  /** The JVM exits: stop runners as a signal would, then kill whatever is left. */
  private static void shutdown() {
    List<Thread> stopping = new ArrayList<>();
    for (Runnable stopper : STOPPERS) {
      Thread thread = new Thread(stopper, "conch-runner-shutdown-stop");
      thread.start();
      stopping.add(thread);
    }
    for (Thread thread : stopping) {
      try {
        // Each stop is bounded by its runner; this only keeps a wedged one from holding the exit.
        thread.join(TimeUnit.SECONDS.toMillis(120));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    Map<Thread, ProcessGroup> killing = new HashMap<>();
    for (ProcessGroup group : List.copyOf(LIVE)) {
      Thread thread =
          new Thread(() -> group.terminate(group.killAfter()), "conch-runner-shutdown-kill");
      thread.start();
      killing.put(thread, group);
    }
    for (Map.Entry<Thread, ProcessGroup> entry : killing.entrySet()) {
      try {
        entry.getKey().join(entry.getValue().killAfter().plus(ProcessGroup.KILL_WAIT).toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /**
   * The pid, state and process group in {@code /proc/<pid>/stat}: "pid (comm) state ppid pgrp ...".
   * The command name may hold spaces and parentheses, so the fields start after the last ')'.
   */
  private static @Nullable Stat stat(String pid, byte[] buffer) {
    int length = 0;
    try (FileInputStream in = new FileInputStream("/proc/" + pid + "/stat")) {
      int read;
      while (length < buffer.length
          && (read = in.read(buffer, length, buffer.length - length)) > 0) {
        length += read;
      }
    } catch (IOException e) {
      return null; // gone while we looked, or not ours to read
    }
    int close = length - 1;
    while (close >= 0 && buffer[close] != ')') {
      close--;
    }
    int state = close + 2;
    int ppid = state + 2;
    int pgrp = ppid;
    while (pgrp < length && buffer[pgrp] != ' ') {
      pgrp++;
    }
    pgrp++;
    long group = 0;
    int at = pgrp;
    while (at < length && buffer[at] >= '0' && buffer[at] <= '9') {
      group = group * 10 + (buffer[at++] - '0');
    }
    if (close < 0 || at == pgrp || at >= length) {
      return null; // not the layout this reads: treated as gone
    }
    return new Stat(Long.parseLong(pid), (char) buffer[state], group);
  }

  private static Optional<Path> find(String name) {
    List<String> dirs = new ArrayList<>(List.of("/usr/bin", "/bin", "/usr/sbin", "/sbin"));
    String path = System.getenv("PATH");
    if (path != null) {
      dirs.addAll(0, List.of(path.split(File.pathSeparator)));
    }
    for (String dir : dirs) {
      if (dir.isEmpty()) {
        continue;
      }
      Path candidate = Paths.get(dir, name);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  private record Stat(long pid, char state, long pgrp) {
    boolean running() {
      return state != 'Z' && state != 'X' && state != 'x';
    }
  }
}
