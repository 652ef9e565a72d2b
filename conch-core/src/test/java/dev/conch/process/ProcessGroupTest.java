package dev.conch.process;

import static dev.conch.process.Runners.WAIT;
import static dev.conch.process.Runners.running;
import static dev.conch.process.Runners.sh;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Process groups of real processes: setsid, signals to the whole group, SIGKILL after grace. */
class ProcessGroupTest {

  @TempDir Path dir;
  private Runners files;
  private ProcessGroup group;

  @BeforeEach
  void files() {
    files = new Runners(dir);
  }

  @AfterEach
  void kill() {
    if (group != null) {
      group.kill();
    }
  }

  private ProcessGroup start(List<String> argv) throws IOException {
    File log = dir.resolve("output.log").toFile();
    group =
        ProcessGroup.start(
            "test command",
            argv,
            Map.of("T", dir.toString(), "w", "mine"),
            Redirect.from(new File("/dev/null")),
            Redirect.appendTo(log),
            Redirect.appendTo(log),
            Duration.ofSeconds(1));
    return group;
  }

  @Test
  void commandLeadsAProcessGroupOfItsOwn() throws Exception {
    ProcessGroup started = start(sh("echo $$ > \"$T/pid\"; exec sleep 1000"));

    assertThat(files.awaitPid("pid")).isEqualTo(started.pid());
    // setsid created the session in place: the pid the JVM knows is the group id.
    assertThat(ProcessGroups.groupOf(started.pid())).isEqualTo(started.pid());
    assertThat(ProcessGroups.groupOf(started.pid()))
        .isNotEqualTo(ProcessGroups.groupOf(ProcessHandle.current().pid()));
  }

  @Test
  void guardPassesTheCommandsArgumentsAndEnvironmentAsGiven() throws Exception {
    // The guard shell execs "$@": nothing is split, expanded or lost, and it sets no variable.
    start(
        List.of(
            "sh",
            "-c",
            "printf '%s|' \"$@\" \"$w\" > \"$T/args.tmp\"; mv \"$T/args.tmp\" \"$T/args\"",
            "sh",
            "a b",
            "-n",
            "$HOME",
            "",
            "*"));

    await().atMost(WAIT).until(() -> !files.lines("args").isEmpty());
    assertThat(files.lines("args")).containsExactly("a b|-n|$HOME||*|mine|");
  }

  @Test
  void membersAreFoundWhateverTheirNameAndAGroupWhoseLeaderExitedIsStillStopped() throws Exception {
    // A member named "x) (y z", which /proc/<pid>/stat shows as "pid (x) (y z) S ...": the command
    // exits at once and leaves it behind in its group.
    Path odd = dir.resolve("x) (y z");
    java.nio.file.Files.createSymbolicLink(odd, Path.of("/bin/sleep"));
    ProcessGroup started = start(sh("\"$T/x) (y z\" 1000 & echo $! > \"$T/member\"; exit 0"));
    long member = files.awaitPid("member");
    await().atMost(WAIT).until(() -> !started.process().isAlive());

    assertThat(ProcessGroups.members(started.pid())).containsExactly(member);
    assertThat(ProcessGroups.groupOf(member)).isEqualTo(started.pid());
    assertThat(started.isEmpty()).isFalse();

    started.terminate(Duration.ofSeconds(1));

    assertThat(running(member)).isFalse();
    assertThat(started.isEmpty()).isTrue();
    assertThat(ProcessGroups.members(started.pid())).isEmpty();
  }

  @Test
  void terminateStopsTheCommandAndItsGrandchildren() throws Exception {
    ProcessGroup started = start(sh("sleep 1000 & echo $! > \"$T/grandchild\"; wait"));
    long grandchild = files.awaitPid("grandchild");
    assertThat(running(grandchild)).isTrue();

    started.terminate(Duration.ofSeconds(10));

    assertThat(started.isEmpty()).isTrue();
    assertThat(running(started.pid())).isFalse();
    assertThat(running(grandchild)).isFalse();
    assertThat(started.process().exitValue()).isEqualTo(ExitCodes.killedBy(15));
  }

  @Test
  void commandIgnoringSigtermIsKilledAfterKillAfter() throws Exception {
    ProcessGroup started =
        start(sh("trap '' TERM; echo $$ > \"$T/pid\"; while :; do sleep 1; done"));
    files.awaitPid("pid");
    long before = System.nanoTime();

    started.terminate(Duration.ofMillis(700));

    assertThat(System.nanoTime() - before).isGreaterThanOrEqualTo(Duration.ofMillis(700).toNanos());
    assertThat(started.isEmpty()).isTrue();
    assertThat(started.process().exitValue()).isEqualTo(ExitCodes.killedBy(9));
  }

  @Test
  void processThatLeftTheGroupIsStoppedToo() throws Exception {
    // A daemon calling setsid leaves the group; the runner still knows it as a descendant.
    ProcessGroup started = start(sh("setsid sleep 1000 & echo $! > \"$T/daemon\"; sleep 1000"));
    long daemon = files.awaitPid("daemon");
    await().atMost(WAIT).until(() -> ProcessGroups.groupOf(daemon) == daemon);

    started.terminate(Duration.ofSeconds(10));

    assertThat(running(daemon)).isFalse();
    assertThat(started.isEmpty()).isTrue();
  }

  @Test
  void groupIsStillStoppedWholeWhenItsWatchdogIsGone() throws Exception {
    // A member whose parent exited: in the group, but no descendant of the command any more, so
    // only a signal to the group reaches it.
    ProcessGroup started =
        start(sh("(sleep 1000 & echo $! > \"$T/member\"); echo $$ > \"$T/pid\"; exec sleep 1000"));
    long member = files.awaitPid("member");
    files.awaitPid("pid");
    long watchdog = started.watchdogPid().orElseThrow();
    ProcessHandle.of(watchdog).ifPresent(ProcessHandle::destroyForcibly);
    await().atMost(WAIT).until(() -> !running(watchdog));

    started.terminate(Duration.ofSeconds(1));

    assertThat(running(member)).isFalse();
    assertThat(started.isEmpty()).isTrue();
  }

  @Test
  void commandWhoseWatchdogIsGoneIsNotStarted() throws Exception {
    Watchdog watchdog = Watchdog.start().orElseThrow();
    try {
      ProcessHandle.of(watchdog.pid()).ifPresent(ProcessHandle::destroyForcibly);
      await().atMost(WAIT).until(() -> !running(watchdog.pid()));
      List<String> command = new java.util.ArrayList<>(List.of("setsid", "--wait", "--"));
      command.addAll(watchdog.guard(sh("touch \"$T/ran\"")));
      ProcessBuilder builder =
          new ProcessBuilder(command)
              .redirectInput(Redirect.from(new File("/dev/null")))
              .redirectOutput(Redirect.DISCARD)
              .redirectError(dir.resolve("error.log").toFile());
      builder.environment().put("T", dir.toString());
      Process guarded = builder.start();

      assertThat(guarded.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      assertThat(guarded.exitValue()).isEqualTo(Watchdog.NO_WATCHDOG);
      assertThat(files.lines("error.log"))
          .containsExactly(
              "conch: the watchdog (pid " + watchdog.pid() + ") is gone: sh not started");
      assertThat(files.file("ran")).doesNotExist();
    } finally {
      watchdog.disarm();
    }
  }

  @Test
  void interruptedTerminateStillKillsEverything() throws Exception {
    ProcessGroup started = start(sh("trap '' TERM; sleep 1000 & echo $! > \"$T/child\"; wait"));
    long child = files.awaitPid("child");

    Thread.currentThread().interrupt();
    try {
      started.terminate(Duration.ofSeconds(60));
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }

    assertThat(running(child)).isFalse();
    assertThat(started.isEmpty()).isTrue();
  }
}
