package dev.conch.process;

import dev.conch.Durations;
import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A command started in a process group of its own, together with everything it forks: signalled and
 * waited for as one.
 *
 * <p>The command is started through {@code setsid --wait}: the JVM's child is never a group leader,
 * so setsid creates the session in place and execs the watchdog's guard, which execs the command
 * once its watchdog knows the group ({@link Watchdog#guard}): its pid is then the group id.
 * Processes that leave the group (a daemon calling setsid itself) are still found through {@link
 * ProcessHandle#descendants()}, remembered while the command runs, since orphans can no longer be
 * found that way once their parent is gone.
 */
final class ProcessGroup {

  private static final Logger log = LoggerFactory.getLogger(ProcessGroup.class);

  /** How long to wait for the group to vanish after SIGKILL before reporting it. */
  static final Duration KILL_WAIT = Duration.ofSeconds(2);

  private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  private final String name;
  private final Process process;
  private final boolean ownGroup;
  private final Duration killAfter;
  private final Set<ProcessHandle> descendants = ConcurrentHashMap.newKeySet();

  private final Optional<Watchdog> watchdog;

  /** Seen empty once: a group with no member left cannot gain one, so it is not read again. */
  private volatile boolean gone;

  private ProcessGroup(
      String name,
      Process process,
      boolean ownGroup,
      Duration killAfter,
      Optional<Watchdog> watchdog) {
    this.name = name;
    this.process = process;
    this.ownGroup = ownGroup;
    this.killAfter = killAfter;
    this.watchdog = watchdog;
  }

  /**
   * Starts {@code argv} (no shell) in a new process group with the parent's environment plus {@code
   * environment}.
   *
   * @param name what the command is, for the logs ("command", "on-acquire hook")
   * @param killAfter how long the shutdown hook lets it handle SIGTERM
   */
  static ProcessGroup start(
      String name,
      List<String> argv,
      Map<String, String> environment,
      Redirect input,
      Redirect output,
      Redirect error,
      Duration killAfter)
      throws IOException {
    Optional<Path> setsid = ProcessGroups.setsid();
    // The watchdog is there before the command, and the command runs only once the watchdog knows
    // its group (Watchdog.guard): no moment passes with the command running unwatched.
    Optional<Watchdog> watchdog = setsid.isPresent() ? Watchdog.start() : Optional.empty();
    List<String> command = new ArrayList<>();
    if (setsid.isPresent()) {
      // --wait only matters if setsid had to fork (it never does for a JVM's child): then it
      // still reports the command's exit status instead of returning at once.
      command.addAll(List.of(setsid.get().toString(), "--wait", "--"));
    }
    command.addAll(watchdog.map(w -> w.guard(argv)).orElse(argv));
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectInput(input)
            .redirectOutput(output)
            .redirectError(error);
    builder.environment().putAll(environment);
    Process process;
    try {
      process = builder.start();
    } catch (IOException | RuntimeException e) {
      watchdog.ifPresent(Watchdog::disarm);
      throw e;
    }
    // Also from here, so that the group id is the watchdog's first line before any signal the JVM
    // sends it; the guard's copy of the same number is ignored.
    watchdog.ifPresent(w -> w.watch(process.pid()));
    ProcessGroup group = new ProcessGroup(name, process, setsid.isPresent(), killAfter, watchdog);
    ProcessGroups.register(group);
    // The command runs: now there is time to ready the watchdog of the next one.
    watchdog.ifPresent(w -> Watchdog.prepare());
    return group;
  }

  /** The pid of the command, which is also the id of its process group. */
  long pid() {
    return process.pid();
  }

  /** The pid of the watchdog that kills the group should this JVM die, if one runs. */
  Optional<Long> watchdogPid() {
    return watchdog.map(Watchdog::pid);
  }

  /** The command itself (the group leader). */
  Process process() {
    return process;
  }

  /** How long SIGTERM is given before SIGKILL when the JVM exits. */
  Duration killAfter() {
    return killAfter;
  }

  /**
   * Whether nothing of the group runs any more: the command is reaped and no member is left. While
   * the command itself runs that is known at once; after, /proc is read until the group is seen
   * empty.
   */
  boolean isEmpty() {
    if (gone) {
      return true;
    }
    if (process.isAlive()) {
      return false;
    }
    gone = running().isEmpty();
    return gone;
  }

  /**
   * Waits up to {@code nanos} for the group to change: woken at once when the command itself exits
   * (usually the whole group), else after the poll interval. An interrupt is kept set.
   */
  private void pause(long nanos) {
    if (!process.isAlive()) {
      LockSupport.parkNanos(nanos);
      return;
    }
    try {
      process.onExit().get(nanos, TimeUnit.NANOSECONDS);
    } catch (TimeoutException | ExecutionException e) {
      // still running, or gone: the caller looks at the group again
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Stops the group: SIGTERM to every member, SIGKILL to whatever still runs after {@code
   * killAfter} (at once when it is zero), then waits until nothing runs, at most {@link
   * #KILL_WAIT}. An interrupt does not cut the stop short: it skips the rest of the SIGTERM grace
   * and is kept for the caller.
   */
  void terminate(Duration killAfter) {
    boolean interrupted = Thread.interrupted();
    try {
      if (isEmpty()) {
        return;
      }
      if (!killAfter.isZero() && !interrupted) {
        signalAll("TERM");
        long deadline = System.nanoTime() + killAfter.toNanos();
        while (!isEmpty()) {
          long left = deadline - System.nanoTime();
          if (left <= 0) {
            log.warn(
                "{} (pid {}) still runs {} after SIGTERM; sending SIGKILL",
                name,
                pid(),
                Durations.format(killAfter));
            break;
          }
          pause(Math.min(left, POLL_NANOS));
          if (Thread.interrupted()) {
            interrupted = true;
            break;
          }
        }
        if (isEmpty()) {
          return;
        }
      }
      signalAll("KILL");
      long deadline = System.nanoTime() + KILL_WAIT.toNanos();
      while (!isEmpty() && deadline - System.nanoTime() > 0) {
        pause(POLL_NANOS);
        interrupted |= Thread.interrupted();
      }
      Set<Long> left = running();
      if (!left.isEmpty()) {
        log.error("{} (pid {}): processes {} still run after SIGKILL", name, pid(), left);
      }
    } finally {
      if (isEmpty()) {
        ProcessGroups.unregister(this);
        watchdog.ifPresent(Watchdog::disarm);
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** SIGKILL to everything at once: for a hook given up mid-way. */
  void kill() {
    terminate(Duration.ZERO);
  }

  /** Sends {@code signal} to the group and to every descendant that left it. */
  void signalAll(String signal) {
    remember();
    boolean kill = signal.equals("KILL");
    if (kill) {
      process.destroyForcibly(); // at once, without waiting for the kill command to start
    }
    // The watchdog's shell signals the group with its built-in kill (no process to start, so the
    // stop begins at once), or the command itself if the group is not formed yet. Without one, or
    // with one that is gone (killed by someone), a kill command does it; that fails when the group
    // is empty or not formed yet (setsid has not run): then the command itself is signalled.
    boolean toGroup =
        ownGroup
            && ((watchdog.isPresent() && watchdog.get().signal(signal))
                || ProcessGroups.signalGroup(pid(), signal));
    if (!toGroup && !kill) {
      process.destroy();
    }
    for (ProcessHandle handle : descendants) {
      if (toGroup && ProcessGroups.groupOf(handle.pid()) == pid()) {
        continue; // the group signal reached it; a second SIGTERM may mean "hurry" to some
      }
      // ProcessHandle checks the start time, so a reused pid is never signalled.
      if (kill) {
        handle.destroyForcibly();
      } else {
        handle.destroy();
      }
    }
  }

  private Set<Long> running() {
    remember();
    Set<Long> pids = new HashSet<>();
    if (process.isAlive()) {
      pids.add(process.pid());
    }
    if (ownGroup && ProcessGroups.hasProc()) {
      pids.addAll(ProcessGroups.members(pid()));
    }
    for (ProcessHandle handle : descendants) {
      if (handle.isAlive() && ProcessGroups.running(handle.pid())) {
        pids.add(handle.pid());
      } else {
        descendants.remove(handle);
      }
    }
    return pids;
  }

  private void remember() {
    if (process.isAlive()) {
      process.descendants().forEach(descendants::add);
    }
  }

  @Override
  public String toString() {
    return name + " (pid " + pid() + ")";
  }
}
