package dev.conch.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.test.EtcdCluster;
import dev.conch.test.EtcdExtension;
import dev.conch.test.Etcdctl;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Run mode, {@code conch elect <office> ... -- <cmd...>}: output, codes, hooks, interop. */
class RunIT {

  private static final Duration WAIT = Duration.ofSeconds(20);

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  @TempDir Path dir;
  private String endpoints;
  private Conch conch;

  @BeforeEach
  void setUp(EtcdCluster cluster) {
    endpoints = cluster.endpoints();
    conch = Conch.at(endpoints);
  }

  @Test
  void stdoutIsTheChildsOutputAndTheStatusItsCode() {
    Conch.Result result =
        conch.run("elect", "code", "--", "sh", "-c", "echo hello; echo oops >&2; exit 7");

    assertThat(result.status()).isEqualTo(7);
    assertThat(result.stdout()).isEqualTo("hello\n");
    assertThat(result.stderr()).contains("oops").contains("office code: leading with token");
  }

  @Test
  void quietLeavesOnlyTheChildsOwnStderr() {
    Conch.Result result = conch.run("elect", "quiet", "-q", "--", "sh", "-c", "echo oops >&2");

    assertThat(result.status()).isZero();
    assertThat(result.stderr()).isEqualTo("oops\n");
  }

  @Test
  void childGetsOfficeTokenAndLeaseOfItsKey() {
    try (Conch.Running run =
        conch.start(
            "elect",
            "env",
            "--",
            "sh",
            "-c",
            "echo \"$CONCH_NAME $CONCH_REV $CONCH_LEASE\"; exec sleep 60")) {
      String[] env = run.awaitLine(l -> l.startsWith("env "), WAIT).split(" ");

      Etcdctl.Result key =
          Etcdctl.run(endpoints, WAIT, "get", "--prefix", "/conch/v1/elect/env/", "-w", "fields");
      assertThat(key.stdout())
          .contains("\"Key\" : \"/conch/v1/elect/env/" + env[2] + "\"")
          .contains("\"CreateRevision\" : " + env[1] + "\n");
    }
  }

  @Test
  void nonblockAndWaitExit75WhileAnotherHolds() {
    try (Etcdctl.Background holder =
        Etcdctl.start(endpoints, "elect", "/conch/v1/elect/busy", "holder")) {
      holder.awaitLine("holder"::equals, WAIT);

      Conch.Result nonblock = conch.run("elect", "busy", "--nonblock", "--", "echo", "ran");
      long start = System.nanoTime();
      Conch.Result waited = conch.run("elect", "busy", "--wait", "1s", "--", "echo", "ran");

      assertThat(nonblock.status()).isEqualTo(75);
      assertThat(nonblock.stdout()).isEmpty();
      assertThat(waited.status()).isEqualTo(75);
      assertThat(waited.stdout()).isEmpty();
      assertThat(waited.stderr()).contains("not leading within 1s");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThan(Duration.ofSeconds(1));
    }
  }

  @Test
  void lossWithoutRestartStopsTheChildRunsOnLoseAndExits70() {
    try (Conch.Running run =
        conch.start("elect", "loss", "--on-lose", "echo on-lose ran >&2", "--", "sleep", "60")) {
      run.awaitErrorLine(l -> l.contains("command started"), WAIT);

      Etcdctl.run(endpoints, WAIT, "del", "--prefix", "/conch/v1/elect/loss/");

      assertThat(run.awaitExit(WAIT)).isTrue();
      assertThat(run.result().status()).isEqualTo(70);
      assertThat(run.errorLines()).contains("on-lose ran");
    }
  }

  @Test
  void hooksRunAroundTheChildWithItsToken() throws IOException {
    Path log = dir.resolve("log");
    String append = " $CONCH_REV >> " + log;

    Conch.Result result =
        conch.run(
            "elect",
            "hooks",
            "--on-acquire",
            "echo acquire" + append,
            "--on-lose",
            "echo lose" + append,
            "--",
            "sh",
            "-c",
            "echo child" + append);

    assertThat(result.status()).isZero();
    String token = Files.readAllLines(log).get(0).split(" ")[1];
    assertThat(Files.readAllLines(log))
        .containsExactly("acquire " + token, "child " + token, "lose " + token);
  }

  @Test
  void failingAcquireHookNeverStartsTheChildGivesTheOfficeUpAndExits70() {
    Conch.Result result =
        conch.run("elect", "refused", "--on-acquire", "exit 3", "--", "echo", "ran");

    // A failed campaign: without --restart no back-off and no second try.
    assertThat(result.status()).isEqualTo(70);
    assertThat(result.stdout()).isEmpty();
    assertThat(conch.run("elect", "refused", "--who").status()).isEqualTo(1);
  }

  @Test
  void shortestTtlWithAShortKillAfterIsAccepted() {
    Conch.Result result =
        conch.run("elect", "short", "--ttl", "2s", "--kill-after", "100ms", "--", "echo", "ran");

    assertThat(result.status()).as(result.stderr()).isZero();
    assertThat(result.stdout()).isEqualTo("ran\n");
  }

  @Test
  void sigtermKillsTheChildsGroupRunsOnLoseResignsAndExits143() throws IOException {
    Path pids = dir.resolve("pids");
    try (Conch.Running first =
        conch.start(
            "elect",
            "term",
            "--on-lose",
            "echo on-lose ran >&2",
            "--",
            "sh",
            "-c",
            "sleep 300 & echo $$ $! > " + pids + "; echo started; wait")) {
      first.awaitLine("started"::equals, WAIT);
      try (Conch.Running second = conch.start("elect", "term", "--", "echo", "second leads")) {
        second.awaitErrorLine(l -> l.contains("following"), WAIT);
        String[] started = Files.readString(pids).strip().split(" ");

        first.signal("TERM");

        assertThat(first.awaitExit(WAIT)).isTrue();
        assertThat(first.result().status()).isEqualTo(143);
        assertThat(first.errorLines()).contains("on-lose ran");
        for (String pid : started) {
          assertThat(isRunning(pid)).as("process %s of the child's group runs", pid).isFalse();
        }
        // A hand-over by resignation, not by lease expiry (TTL 10 s).
        long stopped = System.nanoTime();
        second.awaitLine("second leads"::equals, Duration.ofSeconds(5));
        assertThat(Duration.ofNanos(System.nanoTime() - stopped)).isLessThan(Duration.ofSeconds(5));
      }
    }
  }

  @Test
  void sigintExits130() {
    try (Conch.Running run = conch.start("elect", "int", "--", "sleep", "60")) {
      assertSigintResignsAndExits130(run, "int");
    }
  }

  @Test
  void sigintStopsItEvenWhenItsParentIgnoredSigint() {
    // A script's `conch elect ... &` starts it with SIGINT ignored; `kill -INT` must still resign.
    try (Conch.Running run = conch.startWithSigintIgnored("elect", "int-bg", "--", "sleep", "60")) {
      assertSigintResignsAndExits130(run, "int-bg");
    }
  }

  /**
   * Once {@code run} leads {@code office}, SIGINT ends it with 130 and leaves the office vacant.
   */
  private void assertSigintResignsAndExits130(Conch.Running run, String office) {
    run.awaitErrorLine(l -> l.contains("command started"), WAIT);

    run.signal("INT");

    assertThat(run.awaitExit(WAIT)).isTrue();
    assertThat(run.result().status()).isEqualTo(130);
    assertThat(conch.run("elect", office, "--who").status()).isEqualTo(1);
  }

  @Test
  void etcdctlCandidateLeadsOnceConchResigns() {
    try (Conch.Running run = conch.start("elect", "mixed", "--", "sleep", "60")) {
      run.awaitErrorLine(l -> l.contains("command started"), WAIT);
      try (Etcdctl.Background next =
          Etcdctl.start(endpoints, "elect", "/conch/v1/elect/mixed", "etcdctl")) {
        await().during(Duration.ofMillis(500)).atMost(WAIT).until(() -> next.lines().isEmpty());

        run.close();

        next.awaitLine("etcdctl"::equals, Duration.ofSeconds(5));
      }
    }
  }

  @Test
  void restartRunsTheCommandAgainUntilSignalled() {
    try (Conch.Running run = conch.start("elect", "again", "--restart", "--", "echo", "ran")) {
      run.awaitLine(l -> run.lines().size() >= 2, WAIT);

      run.signal("TERM");

      assertThat(run.awaitExit(WAIT)).isTrue();
      assertThat(run.result().status()).isEqualTo(143);
      assertThat(run.lines()).allMatch("ran"::equals);
    }
  }

  /**
   * Whether {@code pid} runs: a zombie does not. Once conch is gone its orphans' zombies wait for
   * init to reap them, which is not conch's doing.
   */
  private static boolean isRunning(String pid) throws IOException {
    Path stat = Path.of("/proc", pid, "stat");
    if (!Files.exists(stat)) {
      return false;
    }
    try {
      String text = Files.readString(stat);
      return text.charAt(text.lastIndexOf(')') + 2) != 'Z';
    } catch (java.nio.file.NoSuchFileException e) {
      return false;
    }
  }
}
