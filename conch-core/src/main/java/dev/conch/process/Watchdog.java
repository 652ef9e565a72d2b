package dev.conch.process;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A small shell beside each process group that kills the group if this JVM dies, however abruptly
 * (SIGKILL, the OOM killer, a crash): a successor takes the office once the lease expires, and an
 * unsupervised command must not run beside it. A shutdown hook cannot do this; a parent-death
 * signal is tied to the forking thread, which may end first.
 *
 * <p>The watchdog reads a pipe from this JVM: first the group id, then "done" once the group is
 * gone. End of file before "done" means the JVM died: the kernel closed the pipe, and the watchdog
 * sends SIGTERM to the group, then SIGKILL half a second later. It runs in a session of its own, so
 * that a signal to the JVM's process group (Ctrl-C in a terminal) does not reach it.
 */
final class Watchdog {

  private static final Logger log = LoggerFactory.getLogger(Watchdog.class);

  private static final String SCRIPT =
      "read -r pgid || exit 0; read -r word; [ \"$word\" = done ] && exit 0;"
          + " kill -s TERM -- -\"$pgid\" 2>/dev/null; sleep 0.5;"
          + " kill -s KILL -- -\"$pgid\" 2>/dev/null; exit 0";

  private final Process process;
  private boolean disarmed;

  private Watchdog(Process process) {
    this.process = process;
  }

  /** Starts a watchdog, not yet watching any group; empty (and logged) when it cannot start. */
  static Optional<Watchdog> start() {
    List<String> command = new ArrayList<>();
    ProcessGroups.setsid().ifPresent(setsid -> command.add(setsid.toString()));
    command.addAll(List.of("/bin/sh", "-c", SCRIPT, "conch-watchdog"));
    try {
      Process process =
          new ProcessBuilder(command)
              .redirectInput(Redirect.PIPE)
              .redirectOutput(Redirect.DISCARD)
              .redirectError(Redirect.DISCARD)
              .start();
      return Optional.of(new Watchdog(process));
    } catch (IOException e) {
      log.warn(
          "could not start a watchdog; a command may outlive a JVM that is killed: {}",
          e.toString());
      return Optional.empty();
    }
  }

  /** Tells the watchdog which group to kill should this JVM die. */
  synchronized void watch(long pgid) {
    write(pgid + "\n");
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

  private void write(String line) {
    try {
      OutputStream pipe = process.getOutputStream();
      pipe.write(line.getBytes(StandardCharsets.US_ASCII));
      pipe.flush();
    } catch (IOException e) {
      log.debug("watchdog (pid {}) gone: {}", process.pid(), e.toString());
    }
  }
}
