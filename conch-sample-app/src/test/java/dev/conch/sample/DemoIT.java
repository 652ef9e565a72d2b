package dev.conch.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The README's demo command, {@code bin/demo}, run as a user runs it, so that it cannot rot: quick,
 * and without building (this build has just made the jar).
 */
class DemoIT {

  private static final Path DEMO = Path.of(System.getProperty("conch.demo", "../bin/demo"));

  private static final Path OUTPUT_DIR = Path.of("target", "e2e-logs", "demo");

  private static final Pattern LEADS =
      Pattern.compile("app-(\\d) leads office 'reports' with fencing token (\\d+)");

  private static final Pattern TOOK_OVER =
      Pattern.compile(
          "app-(\\d) took over in (\\d+) ms with fencing token (\\d+) \\(app-(\\d) had (\\d+)\\)");

  private static final Pattern REFUSED =
      Pattern.compile(
          "the database refused app-(\\d)'s write with token (\\d+): the fence holds token (\\d+)"
              + " of app-(\\d)");

  private static final Pattern TOOK_THE_OFFICE =
      Pattern.compile("app-(\\d) took the office with fencing token (\\d+) once app-(\\d)'s lease");

  private static final Pattern PID = Pattern.compile("pid (\\d+)");

  private static final Pattern TEMP_DIR = Pattern.compile("data and logs in (\\S+)");

  private Process demo;

  private Path output;

  @Test
  void demoShowsTheLeaderStopsItAndShowsTheSuccessorWithALargerToken() throws Exception {
    start("run");
    assertThat(this.demo.waitFor(3, TimeUnit.MINUTES)).as("demo done").isTrue();
    String out = output();
    assertThat(this.demo.exitValue()).as(out).isZero();

    Matcher leads = find(LEADS, out);
    Matcher tookOver = find(TOOK_OVER, out);
    String leader = leads.group(1);
    long token = Long.parseLong(leads.group(2));
    assertThat(tookOver.group(4)).isEqualTo(leader);
    assertThat(tookOver.group(1)).isNotEqualTo(leader);
    assertThat(Long.parseLong(tookOver.group(5))).isEqualTo(token);
    assertThat(Long.parseLong(tookOver.group(3))).isGreaterThan(token);

    // The successor, frozen during a held write, is refused by the database once the third
    // instance wrote with its larger token.
    Matcher tookTheOffice = find(TOOK_THE_OFFICE, out);
    Matcher refused = find(REFUSED, out);
    String frozen = tookOver.group(1);
    assertThat(tookTheOffice.group(3)).isEqualTo(frozen);
    assertThat(refused.group(1)).isEqualTo(frozen);
    assertThat(Long.parseLong(refused.group(2))).isEqualTo(Long.parseLong(tookOver.group(3)));
    assertThat(refused.group(4)).isEqualTo(tookTheOffice.group(1)).isNotIn(leader, frozen);
    assertThat(Long.parseLong(refused.group(3)))
        .isEqualTo(Long.parseLong(tookTheOffice.group(2)))
        .isGreaterThan(Long.parseLong(refused.group(2)));
    assertThat(out)
        .contains(
            "Report", "with token " + refused.group(2) + " refused by the database: the fence");
    Figures.record(
        "demo: app-"
            + frozen
            + " frozen during a held write with token "
            + refused.group(2)
            + ", app-"
            + refused.group(4)
            + " wrote with token "
            + refused.group(3)
            + ", the database refused the old write");
    Figures.record(
        "demo: app-"
            + leader
            + " -> app-"
            + tookOver.group(1)
            + ", token "
            + token
            + " -> "
            + tookOver.group(3)
            + ", hand-over seen after "
            + tookOver.group(2)
            + " ms");
    assertEverythingStopped(out);
  }

  @Test
  void interruptedDemoStopsAndRemovesEverythingItStarted() throws Exception {
    start("interrupted");
    await("the demo starting its third instance")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .failFast("the demo exited", () -> !this.demo.isAlive())
        .until(() -> output().contains("app-3 pid"));
    // Ctrl-C in a terminal: SIGINT to the demo's whole process group (its background children
    // ignore it). Not to the script alone: bash runs its INT trap only once the foreground command
    // it waits for (a sleep of its polling) has died of SIGINT too; one that exits normally tells
    // bash the signal was handled, and the demo ran on to its end (a CI run failed so).
    assertThat(
            new ProcessBuilder("bash", "-c", "kill -INT -- -" + this.demo.pid()).start().waitFor())
        .isZero();
    assertThat(this.demo.waitFor(1, TimeUnit.MINUTES)).as("demo done after SIGINT").isTrue();
    String out = output();
    assertThat(this.demo.exitValue()).as(out).isEqualTo(130);
    assertThat(out).contains("interrupted").contains("cleaning up");
    assertEverythingStopped(out);
  }

  /**
   * Whatever happened, nothing the demo started survives the test: its own clean-up first, then
   * SIGKILL to its children and to every process it printed the pid of (if that is still one of its
   * etcd or java processes, not a reused pid).
   */
  @AfterEach
  void reap() throws Exception {
    if (this.demo == null) {
      return;
    }
    List<ProcessHandle> started = this.demo.descendants().toList();
    if (this.demo.isAlive()) {
      this.demo.destroy(); // SIGTERM: the demo's own clean-up runs
      if (!this.demo.waitFor(40, TimeUnit.SECONDS)) {
        this.demo.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
    started.forEach(ProcessHandle::destroyForcibly);
    Matcher pids = PID.matcher(output());
    while (pids.find()) {
      ProcessHandle.of(Long.parseLong(pids.group(1)))
          .filter(p -> p.info().commandLine().orElse("").matches(".*(conch-sample-app|etcd).*"))
          .ifPresent(ProcessHandle::destroyForcibly);
    }
  }

  private void start(String name) throws IOException {
    Files.createDirectories(OUTPUT_DIR);
    this.output = OUTPUT_DIR.resolve(name + ".txt");
    // env --default-signal: SIGINT may be ignored where this build was started (a background job),
    // and a shell cannot trap a signal that was ignored when it started. setsid: a process group of
    // its own, as a terminal gives it, led by the demo (setsid and env exec it: the same pid).
    this.demo =
        new ProcessBuilder(
                "setsid",
                "env",
                "--default-signal=INT",
                "bash",
                DEMO.toString(),
                "--quick",
                "--no-build")
            .redirectErrorStream(true)
            .redirectOutput(this.output.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
            .start();
  }

  private String output() throws IOException {
    return Files.readString(this.output);
  }

  private static Matcher find(Pattern pattern, String out) {
    Matcher matcher = pattern.matcher(out);
    assertThat(matcher.find()).as("%s in:\n%s", pattern, out).isTrue();
    return matcher;
  }

  /** Every process whose pid the demo printed has exited, and its temporary directory is gone. */
  private static void assertEverythingStopped(String out) {
    Matcher pids = PID.matcher(out);
    int count = 0;
    while (pids.find()) {
      long pid = Long.parseLong(pids.group(1));
      assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive))
          .as("process %d started by the demo", pid)
          .isEmpty();
      count++;
    }
    assertThat(count)
        .as("pids printed by the demo (etcd, the H2 server and three instances)")
        .isGreaterThanOrEqualTo(5);
    Path dir = Path.of(find(TEMP_DIR, out).group(1));
    assertThat(dir).as("the demo's temporary directory").doesNotExist();
  }
}
