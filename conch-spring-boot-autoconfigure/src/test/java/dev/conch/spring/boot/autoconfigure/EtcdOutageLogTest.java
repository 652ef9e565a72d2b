package dev.conch.spring.boot.autoconfigure;

import static dev.conch.spring.boot.autoconfigure.ConchTestSupport.freshOffice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.ContextInitializer;
import dev.conch.Election;
import dev.conch.test.EtcdExtension;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * What an application started with {@code SpringApplication} logs about etcd, as its operator reads
 * it: nothing at WARN from conch or jetcd on a start against a running etcd; and an etcd out of
 * reach (at start, or stopped under a leader) said by conch, naming the endpoint and {@code
 * conch.etcd.endpoints}, without jetcd's lease client repeating two WARN lines every 500 ms.
 */
@ExtendWith(OutputCaptureExtension.class)
class EtcdOutageLogTest {

  @RegisterExtension final EtcdExtension etcd = EtcdExtension.members(1);

  private static final String LEASE_LINE = "WARN io.etcd.jetcd.impl.LeaseImpl ";

  /**
   * Any of jetcd's clients (KVImpl, LeaseImpl, ...): their retry wrapper warns of each failed call.
   */
  private static final String CLIENT_LINE = "WARN io.etcd.jetcd.impl.";

  private static final Duration OUTAGE = Duration.ofSeconds(5);

  private final List<ConfigurableApplicationContext> started = new ArrayList<>();

  @AfterEach
  void closeAndRestoreTheTestLogging() throws Exception {
    this.started.forEach(ConfigurableApplicationContext::close);
    // Back to logback-test.xml for the tests that run later in this JVM.
    LoggerContext logging = (LoggerContext) LoggerFactory.getILoggerFactory();
    logging.reset();
    new ContextInitializer(logging).autoConfig();
  }

  @Test
  void aStartAgainstARunningEtcdLogsNoWarningFromConchOrJetcd(CapturedOutput output)
      throws Exception {
    // The default TTL: the 3 s of the outage tests is warned about, rightly (a raft leader change
    // would end its terms).
    Election election =
        start(this.etcd.cluster().endpoints(), "--conch.ttl=10s").getBean(Election.class);
    assertThat(election.awaitLeadership(Duration.ofSeconds(30))).isTrue();
    await()
        .during(Duration.ofSeconds(1))
        .atMost(Duration.ofSeconds(3))
        .until(() -> warnings(output).isEmpty());
    assertThat(warnings(output)).isEmpty();
  }

  @Test
  void anEtcdOutOfReachAtStartIsSaidByConchNamingTheEndpointAndItsProperty(CapturedOutput output)
      throws Exception {
    String nowhere = "http://127.0.0.1:" + closedPort();
    start(nowhere);
    String said =
        "campaign failed, will retry: could not get a lease from etcd at "
            + nowhere
            + " (conch.etcd.endpoints) within 1s";
    await().atMost(Duration.ofSeconds(15)).until(() -> output.toString().contains(said));
    // The lease grant was retried every 500 ms meanwhile; jetcd's lines for it (and for any other
    // client call) stay out.
    assertThat(lines(output, CLIENT_LINE)).isZero();
  }

  @Test
  void aWrongEndpointIsSaidOncePerAttemptForAllTheOfficesOfTheSession(CapturedOutput output)
      throws Exception {
    String nowhere = "http://127.0.0.1:" + closedPort();
    ConfigurableApplicationContext context =
        start(
            nowhere,
            "--conch.offices.billing.hook-timeout=30s",
            "--conch.offices.reports.hook-timeout=30s");
    String office = context.getEnvironment().getRequiredProperty("conch.office");
    // Three offices, each failing every call timeout (1 s) plus its back-off: per office, that
    // would be three lines a round. Said for the session, a line per call timeout at most.
    long[] firstAndThird = new long[2];
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(20))
        .until(
            () -> {
              long lines = campaignLines(output).size();
              if (lines >= 1 && firstAndThird[0] == 0) {
                firstAndThird[0] = System.nanoTime();
              }
              if (lines >= 3) {
                firstAndThird[1] = System.nanoTime();
                return true;
              }
              return false;
            });
    assertThat(Duration.ofNanos(firstAndThird[1] - firstAndThird[0]))
        .as("from the first line to the third")
        .isGreaterThanOrEqualTo(Duration.ofMillis(1800));
    assertThat(campaignLines(output))
        .allSatisfy(
            line ->
                assertThat(line)
                    .startsWith("WARN dev.conch.etcd.EtcdSession ")
                    .contains(
                        "offices "
                            + String.join(
                                ", ", new TreeSet<>(List.of("billing", office, "reports")))
                            + ": campaign failed, will retry: could not get a lease from etcd at "
                            + nowhere
                            + " (conch.etcd.endpoints) within 1s"));
    assertThat(lines(output, CLIENT_LINE)).isZero();
  }

  @Test
  void aLevelTheApplicationSetsForJetcdIsKept(CapturedOutput output) throws Exception {
    start("http://127.0.0.1:" + closedPort(), "--logging.level.io.etcd.jetcd=warn");
    await().atMost(Duration.ofSeconds(15)).until(() -> lines(output, LEASE_LINE) >= 2);
  }

  @Test
  void aFiveSecondOutageUnderALeaderIsSaidByConchAndNotBuriedByJetcd(CapturedOutput output)
      throws Exception {
    String endpoints = this.etcd.cluster().endpoints();
    Election election = start(endpoints).getBean(Election.class);
    assertThat(election.awaitLeadership(Duration.ofSeconds(30))).isTrue();

    this.etcd.cluster().member(0).stop();
    // The outage itself: longer than the TTL, so the leader also loses and campaigns again.
    await().pollDelay(OUTAGE).atMost(OUTAGE.plusSeconds(1)).until(() -> true);
    // The new lease is asked for once the old one's deadline passed (TTL 3 s), and its refusal
    // is said after the call timeout (1 s): on a busy machine that can be later than the outage's
    // 5 s. Wait for it, etcd still down, rather than read a snapshot taken too early.
    await()
        .atMost(Duration.ofSeconds(15))
        .until(() -> output.toString().contains("could not get a lease from etcd at " + endpoints));
    String during = output.toString();
    this.etcd.cluster().member(0).start();

    assertThat(count(during, CLIENT_LINE)).as("jetcd's client WARN lines in %s", OUTAGE).isZero();
    assertThat(during)
        .contains("renewal failed at " + endpoints + " (conch.etcd.endpoints)")
        .contains("could not get a lease from etcd at " + endpoints + " (conch.etcd.endpoints)");
    assertThat(election.awaitLeadership(Duration.ofSeconds(30))).isTrue();
  }

  private ConfigurableApplicationContext start(String endpoints, String... more) {
    List<String> args = new ArrayList<>();
    args.add("--logging.config=classpath:logback-outage.xml");
    args.add("--spring.main.banner-mode=off");
    args.add("--spring.main.register-shutdown-hook=false");
    args.add("--conch.etcd.endpoints=" + endpoints);
    args.add("--conch.office=" + freshOffice("outage-log"));
    if (Arrays.stream(more).noneMatch(arg -> arg.startsWith("--conch.ttl="))) {
      args.add("--conch.ttl=3s");
    }
    args.add("--conch.etcd.timeout=1s");
    args.addAll(List.of(more));
    ConfigurableApplicationContext context =
        new SpringApplicationBuilder(ConchOnly.class)
            .web(WebApplicationType.NONE)
            .run(args.toArray(String[]::new));
    this.started.add(context);
    return context;
  }

  /** The WARN lines of conch's or jetcd's loggers. */
  private static List<String> warnings(CapturedOutput output) {
    return output
        .toString()
        .lines()
        .filter(line -> line.startsWith("WARN dev.conch") || line.startsWith("WARN io.etcd"))
        .toList();
  }

  /** conch's WARN lines about a failed campaign. */
  private static List<String> campaignLines(CapturedOutput output) {
    return output
        .toString()
        .lines()
        .filter(line -> line.startsWith("WARN dev.conch") && line.contains("campaign failed"))
        .toList();
  }

  private static long lines(CapturedOutput output, String prefix) {
    return count(output.toString(), prefix);
  }

  private static long count(String text, String prefix) {
    return text.lines().filter(line -> line.startsWith(prefix)).count();
  }

  private static int closedPort() throws Exception {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration(ConchAutoConfiguration.class)
  static class ConchOnly {}
}
