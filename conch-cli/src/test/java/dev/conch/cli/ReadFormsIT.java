package dev.conch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.Hosts;
import dev.conch.test.EtcdCluster;
import dev.conch.test.EtcdExtension;
import dev.conch.test.Etcdctl;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code --who} and {@code --assert}: formats, exit codes, interop with etcdctl, no lease. */
class ReadFormsIT {

  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final Pattern LINE =
      Pattern.compile("(\\S+) (\\S+) pid=(\\d+) since=(\\S+Z) rev=(\\d+)");

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private String endpoints;
  private Conch conch;

  @BeforeEach
  void setUp(EtcdCluster cluster) {
    endpoints = cluster.endpoints();
    conch = Conch.at(endpoints);
  }

  @Test
  void whoOnAVacantOfficePrintsNothingAndExits1() {
    Conch.Result text = conch.run("elect", "vacant", "--who");
    Conch.Result json = conch.run("elect", "vacant", "--who", "--json");

    assertThat(text.status()).isEqualTo(1);
    assertThat(text.stdout()).isEmpty();
    assertThat(json.status()).isEqualTo(1);
    assertThat(json.stdout()).isEmpty();
  }

  @Test
  void aLinkToTheLauncherStartsFromTheSameClassDataArchiveAndSlf4jSaysNothing(@TempDir Path dir)
      throws IOException {
    Path link = Files.createSymbolicLink(dir.resolve("conch"), Conch.launcher().toAbsolutePath());

    Conch.Result direct = conch.run("elect", "vacant", "--who");
    Conch.Result linked =
        conch
            .via(link)
            .env("CONCH_JAVA_OPTS", "-Xlog:class+load=info:stderr")
            .run("elect", "vacant", "--who");

    assertThat(direct.status()).isEqualTo(1);
    assertThat(direct.stderr()).doesNotContain("SLF4J");
    assertThat(linked.status()).isEqualTo(1);
    assertThat(linked.stderr()).contains("dev.conch.cli.Main source: shared objects file");
  }

  @Test
  void whoShowsTheConchLeaderWhoseRevIsTheChildsToken() {
    try (Conch.Running leader =
        conch.start("elect", "who", "--", "sh", "-c", "echo token=$CONCH_REV; exec sleep 60")) {
      String token = leader.awaitLine(l -> l.startsWith("token="), WAIT).substring(6);

      Conch.Result text = conch.run("elect", "who", "--who");
      Conch.Result json = conch.run("elect", "who", "--who", "--json");

      assertThat(text.status()).isZero();
      Matcher line = LINE.matcher(text.stdout().strip());
      assertThat(line.matches()).as(text.stdout()).isTrue();
      assertThat(line.group(1)).isEqualTo("who");
      assertThat(line.group(2)).isEqualTo(Hosts.localName());
      assertThat(line.group(5)).isEqualTo(token);
      assertThat(json.status()).isZero();
      assertThat(json.lines()).hasSize(1);
      assertThat(json.stdout())
          .startsWith("{\"office\":\"who\",\"host\":\"" + Hosts.localName() + "\",\"pid\":")
          .contains("\"since\":\"", "\"id\":\"", "\"rev\":" + token + ",", "\"lease\":\"");
    }
  }

  @Test
  void etcdctlObserverSeesTheConchLeader() {
    try (Conch.Running leader = conch.start("elect", "seen", "--", "sleep", "60");
        Etcdctl.Background observer =
            Etcdctl.start(endpoints, "elect", "-l", "/conch/v1/elect/seen")) {
      String value = observer.awaitLine(l -> l.startsWith("{"), WAIT);

      assertThat(value).startsWith("{\"office\":\"seen\",\"host\":\"" + Hosts.localName());
      assertThat(leader.isAlive()).isTrue();
    }
  }

  @Test
  void whoShowsAnEtcdctlProposalAsItsRawValueWithItsRev() {
    try (Etcdctl.Background proposal =
        Etcdctl.start(endpoints, "elect", "/conch/v1/elect/raw", "proposal-1")) {
      proposal.awaitLine("proposal-1"::equals, WAIT);

      Conch.Result text = conch.run("elect", "raw", "--who");
      Conch.Result json = conch.run("elect", "raw", "--who", "--json");

      assertThat(text.status()).isZero();
      assertThat(text.stdout()).matches("raw proposal-1 rev=\\d+\n");
      assertThat(json.stdout())
          .matches(
              "\\{\"office\":\"raw\",\"value\":\"proposal-1\",\"rev\":\\d+,\"lease\":\"[0-9a-f]+\"}\n");
    }
  }

  @Test
  void readsCreateNoLease() {
    String before = leases();

    assertThat(conch.run("elect", "nolease", "--who").status()).isEqualTo(1);
    assertThat(conch.run("elect", "nolease", "--assert").status()).isEqualTo(1);

    assertThat(leases()).isEqualTo(before);
  }

  @Test
  void assertHoldsOnlyForThisHostAndFromMinRev() {
    Conch.Result vacant = conch.run("elect", "held", "--assert", "--json");
    assertThat(vacant.status()).isEqualTo(1);
    assertThat(vacant.stdout()).isEqualTo("{\"held\": false, \"rev\": null, \"host\": null}\n");

    try (Conch.Running leader =
        conch.start("elect", "held", "--", "sh", "-c", "echo token=$CONCH_REV; exec sleep 60")) {
      long token = Long.parseLong(leader.awaitLine(l -> l.startsWith("token="), WAIT).substring(6));
      String host = Hosts.localName();

      Conch.Result plain = conch.run("elect", "held", "--assert");
      Conch.Result json = conch.run("elect", "held", "--assert", "--json");
      Conch.Result atRev = conch.run("elect", "held", "--assert", "--min-rev", "" + token);
      Conch.Result above =
          conch.run("elect", "held", "--assert", "--min-rev", "" + (token + 1), "--json");

      assertThat(plain.status()).isZero();
      assertThat(plain.stdout()).isEmpty();
      assertThat(json.status()).isZero();
      assertThat(json.stdout())
          .isEqualTo("{\"held\": true, \"rev\": " + token + ", \"host\": \"" + host + "\"}\n");
      assertThat(atRev.status()).isZero();
      assertThat(above.status()).isEqualTo(1);
      assertThat(above.stdout())
          .isEqualTo("{\"held\": false, \"rev\": " + token + ", \"host\": \"" + host + "\"}\n");
    }
  }

  @Test
  void assertFailsWhenAnotherHostHolds() {
    try (Conch.Running elsewhere =
        conch.env("HOSTNAME", "elsewhere").start("elect", "other", "--", "sleep", "60")) {
      elsewhere.awaitErrorLine(l -> l.contains("command started"), WAIT);

      Conch.Result result = conch.run("elect", "other", "--assert", "--json");

      assertThat(result.status()).isEqualTo(1);
      assertThat(result.stdout())
          .matches("\\{\"held\": false, \"rev\": \\d+, \"host\": \"elsewhere\"}\n");
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"--who", "--assert", "--watch", "--"})
  void unreachableEtcdExits69WithinSecondsNamingTheEndpoint(String form) throws IOException {
    String nowhere = "http://127.0.0.1:" + closedPort();
    String[] args =
        form.equals("--")
            ? new String[] {"elect", "x", "--endpoints", nowhere, "--", "true"}
            : new String[] {"elect", "x", "--endpoints", nowhere, form};
    long start = System.nanoTime();

    Conch.Result result = conch.run(args);

    assertThat(result.status()).as(result.stderr()).isEqualTo(69);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    assertThat(result.stderr()).contains("etcd unavailable at " + nowhere);
    assertThat(result.stderr()).contains("connection refused");
    assertThat(result.stdout()).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"--who", "--assert", "--watch", "--"})
  void aHostThatDoesNotResolveExits69NamingIt(String form) {
    // .invalid never resolves (RFC 2606).
    String nowhere = "http://conch-test.invalid:2379";
    String[] args =
        form.equals("--")
            ? new String[] {"elect", "x", "--endpoints", nowhere, "--", "true"}
            : new String[] {"elect", "x", "--endpoints", nowhere, form};

    Conch.Result result = conch.run(args);

    assertThat(result.status()).as(result.stderr()).isEqualTo(69);
    assertThat(result.stderr()).contains("etcd unavailable at " + nowhere, "no such host");
    assertThat(result.stdout()).isEmpty();
  }

  @Test
  void historyShowsEachTermWithHowItEndedAndWhyTellsTheLastChange() {
    Conch.Result none = conch.run("elect", "history", "--history");
    assertThat(none.status()).as(none.stderr()).isEqualTo(3);
    assertThat(none.stdout()).isEmpty();
    String first;
    try (Conch.Running a =
        conch.start("elect", "history", "--", "sh", "-c", "echo token=$CONCH_REV; exec sleep 60")) {
      first = a.awaitLine(l -> l.startsWith("token="), WAIT).substring(6);
      a.signal("TERM"); // resigns: the child's group is stopped, then the key deleted
      assertThat(a.awaitExit(WAIT)).isTrue();
    }
    try (Conch.Running b =
        conch.start("elect", "history", "--", "sh", "-c", "echo token=$CONCH_REV; exec sleep 60")) {
      String second = b.awaitLine(l -> l.startsWith("token="), WAIT).substring(6);

      Conch.Result history = conch.run("elect", "history", "--history");
      Conch.Result last = conch.run("elect", "history", "--history", "-n", "1", "--json");
      Conch.Result why = conch.run("elect", "history", "--why");

      assertThat(history.status()).as(history.stderr()).isZero();
      String[] lines = history.stdout().split("\n");
      assertThat(lines).hasSize(2);
      assertThat(lines[0])
          .startsWith("history token=" + first + " id=")
          .contains(
              " host=" + Hosts.localName() + " ",
              " held=",
              " resigned: the supervisor was asked to stop");
      assertThat(lines[1]).startsWith("history token=" + second + " ").endsWith(" open");
      assertThat(last.stdout())
          .startsWith("{\"office\":\"history\",\"token\":" + second + ",")
          .contains("\"vacantBeforeMs\":")
          .endsWith("}\n");
      assertThat(why.status()).isZero();
      assertThat(why.stdout())
          .startsWith("history: '")
          .contains(" leads with token " + second + " since ")
          .contains(" ended its term with token " + first + " after ")
          .contains(": resigned")
          .contains("the office was vacant for ");
    }
  }

  @Test
  void aNumberOfTermsOutsideItsRangeIsRefusedByName() {
    Conch.Result zero = conch.run("elect", "x", "--history", "-n", "0");
    Conch.Result alone = conch.run("elect", "x", "--why", "-n", "3");

    assertThat(zero.status()).isEqualTo(64);
    assertThat(zero.stderr()).contains("invalid -n '0': a number of terms from 1 to 1000");
    assertThat(alone.status()).isEqualTo(64);
    assertThat(alone.stderr()).contains("-n goes with --history");
  }

  private String leases() {
    Etcdctl.Result list = Etcdctl.run(endpoints, WAIT, "lease", "list");
    assertThat(list.succeeded()).as(list.stderr()).isTrue();
    return list.stdout();
  }

  private static int closedPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
