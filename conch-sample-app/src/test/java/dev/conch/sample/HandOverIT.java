package dev.conch.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.sample.SampleApps.Elected;
import dev.conch.sample.SampleApps.HandOver;
import dev.conch.test.Etcdctl;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Three instances on one etcd with a 4 s TTL, and what happens to their office: exactly one leads,
 * and their Prometheus scrapes say so ({@link PrometheusScrape}); with etcd gone nobody does, and
 * the scrapes raise the leaderless alarm, and with etcd back one does again; a leader stopped with
 * SIGTERM is succeeded within half the TTL, one killed with SIGKILL within TTL + 1.5 s; every
 * successor has a larger token.
 *
 * <p>The instances are started once for the class (three JVMs are most of the time each check would
 * take alone), and the checks run in this order: each stop leaves one instance fewer. Each check
 * starts from one agreed leader and one candidate key per running instance, so that none depends on
 * how the previous one ended, and each can run alone ({@code -Dit.test=HandOverIT#...}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HandOverIT {

  private static final Duration TTL = Duration.ofSeconds(4);

  /**
   * A resign hands over at once; a successor that waited for the lease could not lead before the
   * TTL less the time since the last renewal (renewals go at most a quarter of the TTL apart here):
   * 3 s at the earliest. Half the TTL tells the two apart on a busy machine too, where the
   * successor's acquire hooks and the poll of its assert URL took 500 ms of a 1,021 ms hand-over
   * (won 522 ms after the signal) beside three other ITs' JVMs on two cores; 1 s did not.
   */
  private static final Duration GRACEFUL_BOUND = TTL.dividedBy(2);

  /**
   * A killed leader cannot resign: its key stays until etcd expires its lease, so another instance
   * leads within the TTL, plus etcd's expiry scan (500 ms) and a campaign (the bound).
   */
  private static final Duration CRASH_BOUND = TTL.plusMillis(1500);

  private SampleApps apps;

  @BeforeAll
  void start() {
    this.apps = SampleApps.start("hand-over", 3, "--conch.ttl=" + TTL.toSeconds() + "s");
  }

  @AfterAll
  void close() {
    if (this.apps != null) {
      this.apps.close();
    }
  }

  /**
   * The page at {@code /} of every instance names the leader and its token, and the leader's
   * reports reach etcd through the fenced write, stamped with its token.
   */
  @Test
  @Order(1)
  void oneOfThreeLeadsItsPageNamesItAndItsReportsCarryItsToken() {
    Elected leader = awaitSettled();
    String named = leader.app().id() + " (token " + leader.token() + ")";
    for (SampleAppProcess app : this.apps.running()) {
      assertThat(app.page()).as("page of %s", app).contains(named);
    }
    assertThat(leader.app().page()).contains("LEADING").contains("<td>" + leader.token() + "</td>");
    String report =
        await("a report stored by " + leader.app())
            .atMost(Duration.ofSeconds(10))
            .pollInterval(Duration.ofMillis(200))
            .until(
                () ->
                    Etcdctl.run(
                            this.apps.etcd().endpoints(),
                            Duration.ofSeconds(5),
                            "get",
                            "--print-value-only",
                            "/conch-sample/reports/latest")
                        .stdout(),
                value -> !value.isBlank());
    assertThat(report)
        .contains("\"by\":\"" + leader.app().id() + "\"")
        .contains("\"token\":" + leader.token());
    // What Prometheus scrapes of each instance: the meters the alert rules read.
    PrometheusScrape.assertSteady(this.apps, leader, TTL);
  }

  /**
   * Failing closed: with etcd gone nobody can renew, so the leader stops leading before its lease
   * could have expired, and nobody claims the office while etcd is away; once etcd is back, the
   * instances elect a leader again by themselves.
   *
   * <p>"Claims" is each instance's own belief, from the overview ({@code /actuator/conch}), which
   * answers from memory: the assert URL cannot tell, as it needs etcd to say yes and so says 503
   * (never 200) as soon as etcd is gone, whatever the instance believes.
   */
  @Test
  @Order(2)
  void withEtcdStoppedNobodyLeadsAfterTheLeaseDeadlineAndWithEtcdBackOneLeadsAgain() {
    Elected first = awaitSettled();
    assertThat(first.app().claims()).isTrue();

    // Every renewal the instances can still get was sent before this instant, so every lease
    // deadline D (last acknowledged renewal + TTL) lies before it + TTL.
    long stopped = System.nanoTime();
    this.apps.etcd().member(0).stop();
    Duration untilDeadline = TTL.minusNanos(System.nanoTime() - stopped);
    await("no instance claims the office by the lease deadline")
        .atMost(untilDeadline)
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(20))
        .until(() -> this.apps.running().stream().noneMatch(SampleAppProcess::claims));
    Duration dropped = Duration.ofNanos(System.nanoTime() - stopped);
    Figures.record(
        String.format(
            "etcd stopped (ttl %ss): %s stopped claiming token %d %d ms after etcd was signalled",
            TTL.toSeconds(), first.app().id(), first.token(), dropped.toMillis()));

    // And it stays that way while etcd is away, well past every lease deadline.
    await("no instance claims the office while etcd is stopped")
        .during(TTL)
        .atMost(TTL.plusSeconds(2))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> this.apps.running().stream().noneMatch(SampleAppProcess::claims));
    await("health DOWN on every instance")
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> this.apps.askAll(SampleAppProcess::health).values(),
            answers -> answers.stream().allMatch(Optional.of("DOWN")::equals));
    assertThat(this.apps.askAll(SampleAppProcess::conchHealth))
        .allSatisfy(
            (app, health) -> assertThat(health).as("conch health of %s", app).contains("DOWN"));
    assertThat(this.apps.askAll(SampleAppProcess::assertStatus))
        .allSatisfy(
            (app, status) ->
                assertThat(status).as("assert URL of %s without etcd", app).isEqualTo(503));
    assertThat(this.apps.askAll(SampleAppProcess::leaderStatus))
        .allSatisfy(
            (app, status) ->
                assertThat(status).as("leader view of %s without etcd", app).isEqualTo(503));
    // The alarm: the office seen leaderless past its budget, and nobody reporting leading.
    PrometheusScrape.awaitLeaderlessBeyondBudget(this.apps);

    long restarted = System.nanoTime();
    this.apps.etcd().member(0).start();
    // Not a bound of conch's own: each client reconnects on gRPC's back-off (1 s growing by 1.6
    // each attempt), and keys of leases given up during the outage stay until their owner
    // reaches etcd again or etcd, which restores leases with a fresh TTL, expires them.
    Elected again = this.apps.awaitOneLeader(Duration.ofSeconds(45));
    Figures.record(
        String.format(
            "etcd back: %s leads with token %d, %d ms after etcd was started again",
            again.app().id(),
            again.token(),
            Duration.ofNanos(System.nanoTime() - restarted).toMillis()));
    assertThat(again.token()).isGreaterThan(first.token());
    PrometheusScrape.awaitLedAgain(this.apps, first.app());
    await("health UP on every instance")
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> this.apps.askAll(SampleAppProcess::health).values(),
            answers -> answers.stream().allMatch(Optional.of("UP")::equals));
  }

  /**
   * A leader stopped with SIGTERM resigns on its way out, so another instance leads within half the
   * TTL (about 0.2 s on a quiet machine, e2e-figures.txt): were the hand-over waiting for the lease
   * (TTL 4 s, renewed a few times per TTL), it would take seconds and could not be mistaken for
   * this.
   */
  @Test
  @Order(3)
  void leaderStoppedWithSigtermIsSucceededWithinOneSecondWithALargerToken() throws Exception {
    Elected leader = awaitSettled();
    HandOver handOver =
        this.apps.stopLeader(leader, SampleAppProcess::terminate, Duration.ofSeconds(30));
    Figures.record(handOver.describe("graceful (SIGTERM, ttl " + TTL.toSeconds() + "s)"));
    assertThat(handOver.to().token()).isGreaterThan(leader.token());
    assertThat(handOver.observed())
        .as("time from SIGTERM to the successor's assert URL answering 200")
        .isLessThan(GRACEFUL_BOUND);
  }

  /** A leader killed with SIGKILL cannot resign: a successor leads once etcd expires its lease. */
  @Test
  @Order(4)
  void leaderKilledWithSigkillIsSucceededWithinTtlPlusOneAndAHalfSeconds() throws Exception {
    Elected leader = awaitSettled();
    HandOver handOver =
        this.apps.stopLeader(leader, SampleAppProcess::kill, CRASH_BOUND.multipliedBy(3));
    Figures.record(handOver.describe("crash (SIGKILL, ttl " + TTL.toSeconds() + "s)"));
    assertThat(handOver.to().token()).isGreaterThan(leader.token());
    assertThat(handOver.observed())
        .as("time from SIGKILL to the successor's assert URL answering 200")
        .isLessThan(CRASH_BOUND);
  }

  /**
   * One agreed leader, and one candidate key per running instance: no key left of a lease given up
   * in an earlier check (etcd restores leases with a fresh TTL after a restart), which a successor
   * would have to wait out.
   */
  private Elected awaitSettled() {
    Elected leader = this.apps.awaitOneLeader(SampleApps.START_TIMEOUT);
    int running = this.apps.running().size();
    assertThat(running).as("instances running").isGreaterThanOrEqualTo(2);
    await("one candidate key per running instance")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(this::candidateKeys, keys -> keys == running);
    return leader;
  }

  private long candidateKeys() {
    Etcdctl.Result keys =
        Etcdctl.run(
            this.apps.etcd().endpoints(),
            Duration.ofSeconds(5),
            "get",
            "--prefix",
            "--keys-only",
            "/conch/v1/elect/" + SampleAppProcess.OFFICE + "/");
    assertThat(keys.succeeded()).as(keys.stderr()).isTrue();
    return keys.stdout().lines().filter(line -> !line.isBlank()).count();
  }
}
