package dev.conch.process;

import static dev.conch.process.Runners.WAIT;
import static dev.conch.process.Runners.sh;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.conch.InvalidArgumentException;
import dev.conch.etcd.EtcdClients;
import dev.conch.etcd.EtcdSession;
import dev.conch.etcd.SessionOptions;
import dev.conch.test.EtcdExtension;
import dev.conch.test.Etcdctl;
import dev.conch.test.TcpProxy;
import io.etcd.jetcd.Client;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The runner on a real etcd: the token it exports, loss by partition, hand-over on exit. */
class ExternalCommandRunnerEtcdTest {

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private static final AtomicInteger offices = new AtomicInteger();

  /** Appends "start REV NANOS" and, on SIGTERM, "stop REV NANOS" to $T/intervals. */
  private static final List<String> RECORDER =
      sh(
          "echo \"start $CONCH_REV $(date +%s%N)\" >> \"$T/intervals\";"
              + " trap 'echo \"stop $CONCH_REV $(date +%s%N)\" >> \"$T/intervals\"; exit 0' TERM;"
              + " sleep 1000 & wait");

  @TempDir Path dir;
  private Runners runners;
  private String office;

  @BeforeEach
  void runners() {
    runners = new Runners(dir);
    office = "runner-" + offices.incrementAndGet() + "-" + System.nanoTime() % 100000;
  }

  @AfterEach
  void close() {
    runners.close();
  }

  private EtcdSession session(String endpoints, Duration ttl) {
    Client client =
        runners.track(
            EtcdClients.builder(EtcdClients.parseEndpoints(endpoints), Duration.ofSeconds(2))
                .build());
    return runners.track(
        EtcdSession.open(
            client, SessionOptions.defaults().withTtl(ttl).withTimeout(Duration.ofSeconds(1))));
  }

  private static long field(String json, String name) {
    Matcher matcher = Pattern.compile("\"" + name + "\":(\\d+)").matcher(json);
    assertThat(matcher.find()).as(name + " in " + json).isTrue();
    return Long.parseLong(matcher.group(1));
  }

  @Test
  void conchRevIsTheCreateRevisionEtcdShowsForTheKey() throws Exception {
    EtcdSession session = session(etcd.cluster().endpoints(), Duration.ofSeconds(10));
    runners.start(
        runners
            .builder(office, session::election)
            .electionName(session.options().electionName(office))
            .command(
                sh(
                    "echo \"$CONCH_REV $CONCH_LEASE $ETCD_LOCK_KEY\" > \"$T/env.tmp\";"
                        + " mv \"$T/env.tmp\" \"$T/env\"; exec sleep 1000")));
    await().atMost(WAIT).until(() -> !runners.lines("env").isEmpty());
    String[] env = runners.lines("env").get(0).split(" ");

    Etcdctl.Result keys =
        Etcdctl.run(
            etcd.cluster().endpoints(),
            WAIT,
            "get",
            "--prefix",
            "/conch/v1/elect/" + office,
            "-w",
            "json");

    assertThat(keys.succeeded()).as(keys.stderr()).isTrue();
    assertThat(Long.parseLong(env[0])).isEqualTo(field(keys.stdout(), "create_revision"));
    assertThat(env[1]).isEqualTo(Long.toHexString(field(keys.stdout(), "lease")));
    assertThat(env[2]).isEqualTo("/conch/v1/elect/" + office + "/" + env[1]);
  }

  @Test
  void partitionedLeaderStopsItsCommandBeforeTheFollowersCommandStarts() throws Exception {
    Duration ttl = Duration.ofSeconds(4);
    try (TcpProxy proxy = TcpProxy.start("127.0.0.1", etcd.cluster().member(0).clientPort())) {
      EtcdSession cutOff = session(proxy.endpoint(), ttl);
      EtcdSession healthy = session(etcd.cluster().endpoints(), ttl);
      ExternalCommandRunner a =
          runners.start(runners.builder(office, cutOff::election).command(RECORDER));
      await().atMost(WAIT).until(() -> runners.lines("intervals").size() == 1);
      ExternalCommandRunner b =
          runners.start(runners.builder(office, healthy::election).command(RECORDER));

      proxy.blackhole();

      assertThat(a.awaitExit(WAIT)).hasValue(ExitCodes.LOST);
      await().atMost(WAIT).until(() -> runners.lines("intervals").size() == 3);
      List<String[]> lines =
          runners.lines("intervals").stream().map(line -> line.split(" ")).toList();
      assertThat(lines).extracting(line -> line[0]).containsExactly("start", "stop", "start");
      long aToken = Long.parseLong(lines.get(0)[1]);
      assertThat(Long.parseLong(lines.get(1)[1])).isEqualTo(aToken);
      assertThat(Long.parseLong(lines.get(2)[1])).isGreaterThan(aToken);
      // Zero overlap: a's command had stopped before b's started.
      assertThat(Long.parseLong(lines.get(1)[2])).isLessThan(Long.parseLong(lines.get(2)[2]));
      assertThat(b.childPid()).isPresent();
    }
  }

  @Test
  void onLoseHookOfACutOffLeaderIsKilledBeforeTheLeaseDeadline() throws Exception {
    Duration ttl = Duration.ofSeconds(4);
    try (TcpProxy proxy = TcpProxy.start("127.0.0.1", etcd.cluster().member(0).clientPort())) {
      EtcdSession cutOff = session(proxy.endpoint(), ttl);
      EtcdSession healthy = session(etcd.cluster().endpoints(), ttl);
      ExternalCommandRunner a =
          runners.start(
              runners
                  .builder(office, cutOff::election)
                  // Far longer than the TTL: only the deadline can end this hook in time.
                  .hookTimeout(Duration.ofSeconds(60))
                  .onLose(
                      "echo $$ > \"$T/on-lose\";"
                          + " while :; do date +%s%N >> \"$T/beats\"; sleep 0.05; done")
                  .command(RECORDER));
      await().atMost(WAIT).until(() -> runners.lines("intervals").size() == 1);
      runners.start(runners.builder(office, healthy::election).command(RECORDER));

      proxy.blackhole();
      long hook = runners.awaitPid("on-lose");

      assertThat(a.awaitExit(WAIT)).hasValue(ExitCodes.LOST);
      assertThat(Runners.running(hook)).as("the on-lose hook still runs").isFalse();
      await().atMost(WAIT).until(() -> runners.lines("intervals").size() == 3);
      long successorStarted = Long.parseLong(runners.lines("intervals").get(2).split(" ")[2]);
      List<String> beats = runners.lines("beats");
      assertThat(beats).isNotEmpty();
      // Zero overlap: the hook was dead before the successor's command started.
      assertThat(Long.parseLong(beats.get(beats.size() - 1))).isLessThan(successorStarted);
    }
  }

  @Test
  void cleanExitHandsOverAtOnceWithoutWaitingForTheTtl() throws Exception {
    // A 30 s TTL: a hand-over that waited for the lease would take 30 s, not a resign's few ms.
    Duration ttl = Duration.ofSeconds(30);
    ExternalCommandRunner a =
        runners.start(
            runners
                .builder(office, session(etcd.cluster().endpoints(), ttl)::election)
                .command(
                    sh(
                        "echo \"start $CONCH_REV\" >> \"$T/intervals\";"
                            + " while [ ! -e \"$T/go\" ]; do sleep 0.05; done; exit 4")));
    await().atMost(WAIT).until(() -> runners.lines("intervals").size() == 1);
    ExternalCommandRunner b =
        runners.start(
            runners
                .builder(office, session(etcd.cluster().endpoints(), ttl)::election)
                .command(RECORDER));

    runners.touch("go");

    assertThat(a.awaitExit(WAIT)).hasValue(4);
    await().atMost(Duration.ofSeconds(10)).until(() -> b.childPid().isPresent());
    await().atMost(WAIT).until(() -> runners.lines("intervals").size() == 2);
  }

  @Test
  void waitThatRunsOutWhileEtcdIsUnreachableEndsWith69() throws Exception {
    try (TcpProxy proxy = TcpProxy.start("127.0.0.1", etcd.cluster().member(0).clientPort())) {
      proxy.blackhole();
      EtcdSession session = session(proxy.endpoint(), Duration.ofSeconds(4));

      ExternalCommandRunner runner =
          runners.start(
              runners
                  .builder(office, session::election)
                  .waitFor(Duration.ofSeconds(1))
                  .command(RECORDER));

      assertThat(runner.awaitExit(WAIT)).hasValue(ExitCodes.UNAVAILABLE);
      assertThat(runners.lines("intervals")).isEmpty();
    }
  }

  @Test
  void killAfterThatCannotFitBeforeTheLeaseDeadlineIsRefused() {
    EtcdSession session = session(etcd.cluster().endpoints(), Duration.ofSeconds(4));

    assertThatThrownBy(
            () ->
                runners
                    .builder(office, session::election)
                    .killAfter(Duration.ofSeconds(5))
                    .command(RECORDER)
                    .build())
        .isInstanceOf(InvalidArgumentException.class)
        .hasMessageContaining("kill-after '5s'")
        .hasMessageContaining("ttl");
  }
}
