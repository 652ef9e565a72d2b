package dev.conch.process;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A small shell beside each process group that kills the group if this JVM dies, however abruptly
 * (SIGKILL, the OOM killer, a crash): a successor takes the office once the lease expires, and an
 * unsupervised command must not run beside it. A shutdown hook cannot do this; a parent-death
 * signal is tied to the forking thread, which may end first.
 *
 * <p>The watchdog reads a pipe from this JVM: first the group id, then the signals the JVM wants
 * sent to the group (TERM, KILL: its built-in kill starts no process, so a stop begins at once),
 * then "done" once the group is gone. End of file before "done" means the JVM died: the kernel
 * closed the pipe, and the watchdog sends SIGTERM to the group, then SIGKILL half a second later.
 * It runs in a session of its own, so that a signal to the JVM's process group (Ctrl-C in a
 * terminal) does not reach it.
 *
 * <p>The JVM learns the group id only once the command runs, and may die before it can pass it on.
 * So the command is started through a {@link #guard guard}: a shell that, already leading its new
 * group, writes its own pid into the watchdog's pipe (opened anew through {@code
 * /proc/<watchdog>/fd/0}) and only then execs the command. What is in a pipe is read before its end
 * of file, so once that write returned the watchdog knows the group, whenever the JVM dies. A guard
 * that finds no watchdog does not run the command. A watchdog that reads end of file before any
 * group first closes its stdin, so that no guard can find it any more, then reads what a guard may
 * have written meanwhile and kills that group.
 */
final class Watchdog {

  private static final Logger log = LoggerFactory.getLogger(Watchdog.class);

  /** The status of a guard that found no watchdog: the command was not started. */
  static final int NO_WATCHDOG = 125;

  // The group id may come twice (from the guard and from the JVM, same number, either first): a
  // number where a word is expected is ignored.
  private static final String SCRIPT =
      "if read -r pgid; then"
          + " while read -r word; do case $word in"
          + " done) exit 0 ;;"
          + " TERM|KILL) kill -s $word -- -\"$pgid\" 2>/dev/null || kill -s $word \"$pgid\" 2>/dev/null ;;"
          + " esac; done;"
          + " else exec 3<&0 0<&-; read -r pgid <&3 || exit 0; fi;"
          + " kill -s TERM -- -\"$pgid\" 2>/dev/null; sleep 0.5;"
          + " kill -s KILL -- -\"$pgid\" 2>/dev/null; exit 0";

  // $1 is the watchdog's pid, the rest the command; no variable is set, as it would change one the
  // command may inherit. "<>" opens without blocking (a write-only open of a pipe waits for a
  // reader), and -p both before and after the write makes sure the watchdog still held its end once
  // the write was in: a watchdog that let go reads it from its last fd.
  private static final String GUARD =
      "[ -p \"/proc/$1/fd/0\" ] && echo $$ 2>/dev/null 1<>\"/proc/$1/fd/0\""
          + " && [ -p \"/proc/$1/fd/0\" ] || {"
          + " echo \"conch: the watchdog (pid $1) is gone: $2 not started\" >&2; exit "
          + NO_WATCHDOG
          + "; }; shift; exec \"$@\"";

  /** Whether a child can reach a watchdog's pipe through /proc (Linux). */
  private static final boolean GUARDED = Files.isDirectory(Path.of("/proc/self/fd"));

  // Guarded by Watchdog.class: one watchdog started ahead of need while runners run, so that
  // starting a command does not wait for a shell to start as well.
  private static @Nullable Process spare;
  private static int runners;

  private final Process process;
  private boolean disarmed;

  private Watchdog(Process process) {
    this.process = process;
  }

  /**
   * A watchdog, not yet watching any group: the spare one started ahead of need if it is still
   * there, else a new one; a new spare is started in the background. Empty (and logged) when none
   * can start.
   */
  static Optional<Watchdog> start() {
    Process ready;
    synchronized (Watchdog.class) {
      ready = spare;
      spare = null;
    }
    if (ready == null || !ready.isAlive()) {
      try {
        ready = spawn();
      } catch (IOException e) {
        log.warn(
            "could not start a watchdog; a command may outlive a JVM that is killed: {}",
            e.toString());
        return Optional.empty();
      }
    }
    return Optional.of(new Watchdog(ready));
  }

  /**
   * A runner starts: from now on a spare watchdog is kept ready, so that its commands start without
   * waiting for a shell. An idle spare exits by itself when this JVM dies (its pipe closes before
   * it read a group).
   */
  static void retain() {
    synchronized (Watchdog.class) {
      runners++;
    }
    prepare();
  }

  /** A runner ended: the last one takes the spare watchdog along. */
  static void release() {
    Process idle = null;
    synchronized (Watchdog.class) {
      runners = Math.max(0, runners - 1);
      if (runners == 0) {
        idle = spare;
        spare = null;
      }
    }
    if (idle != null) {
      idle.destroy(); // it watches nothing yet: nothing else to stop
    }
  }

  /** Starts the spare watchdog if runners run and there is none (after a command started). */
  static void prepare() {
    synchronized (Watchdog.class) {
      if (runners == 0 || (spare != null && spare.isAlive())) {
        return;
      }
      try {
        spare = spawn();
      } catch (IOException e) {
        log.debug("could not start a spare watchdog: {}", e.toString());
      }
    }
  }

  private static Process spawn() throws IOException {
    List<String> command = new ArrayList<>();
    ProcessGroups.setsid().ifPresent(setsid -> command.add(setsid.toString()));
    command.addAll(List.of("/bin/sh", "-c", SCRIPT, "conch-watchdog"));
    return new ProcessBuilder(command)
        .redirectInput(Redirect.PIPE)
        .redirectOutput(Redirect.DISCARD)
        .redirectError(Redirect.DISCARD)
        .start();
  }

  /**
   * The command line that runs {@code argv} only once this watchdog knows its group: to be started
   * in a new session (setsid), whose leader's pid is the group id. Without /proc, {@code argv}
   * itself: the group is then known from {@link #watch} only.
   */
  List<String> guard(List<String> argv) {
    if (!GUARDED) {
      return argv;
    }
    List<String> guarded = new ArrayList<>(List.of("/bin/sh", "-c", GUARD, "conch-guard"));
    guarded.add(Long.toString(process.pid()));
    guarded.addAll(argv);
    return guarded;
  }

  /** Tells the watchdog which group to kill should this JVM die. */
  synchronized void watch(long pgid) {
    write(pgid + "\n");
  }

  /**
   * Has the watchdog send {@code signal} (TERM or KILL) to the group, with its shell's built-in
   * kill: no process is started, so it goes out at once. Returns whether the watchdog took it.
   */
  synchronized boolean signal(String signal) {
    return !disarmed && process.isAlive() && write(signal + "\n");
  }

  /** The group is gone: the watchdog exits without killing anything. */
  synchronized void disarm() {
    if (!disarmed) {
      disarmed = true;
      write("done\n");
      try {
        process.getOutputStream().close();
      } catch (IOException e) {
        // It has exited already: nothing left to disarm.
      }
    }
  }

  /** The watchdog's pid, for tests. */
  long pid() {
    return process.pid();
  }

  private boolean write(String line) {
    try {
      OutputStream pipe = process.getOutputStream();
      pipe.write(line.getBytes(StandardCharsets.US_ASCII));
      pipe.flush();
      return true;
    } catch (IOException e) {
      log.debug("watchdog (pid {}) gone: {}", process.pid(), e.toString());
      return false;
    }
  }
}
