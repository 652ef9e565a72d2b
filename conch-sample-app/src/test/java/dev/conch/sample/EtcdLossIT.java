package dev.conch.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.sample.SampleApps.Elected;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Failing closed: with etcd gone nobody can renew, so the leader stops leading before its lease
 * could have expired, and nobody claims the office while etcd is away; once etcd is back, the
 * instances elect a leader again by themselves.
 *
 * <p>"Claims" is each instance's own belief, from the overview ({@code /actuator/conch}), which
 * answers from memory: the assert URL cannot tell, as it needs etcd to say yes and so says 503
 * (never 200) as soon as etcd is gone, whatever the instance believes.
 */
class EtcdLossIT {

  private static final Duration TTL = Duration.ofSeconds(4);

  @Test
  void withEtcdStoppedNobodyLeadsAfterTheLeaseDeadlineAndWithEtcdBackOneLeadsAgain()
      throws Exception {
    try (SampleApps apps =
        SampleApps.start("etcd-loss", 3, "--conch.ttl=" + TTL.toSeconds() + "s")) {
      Elected first = apps.awaitOneLeader(SampleApps.START_TIMEOUT);
      assertThat(first.app().claims()).isTrue();

      // Every renewal the instances can still get was sent before this instant, so every lease
      // deadline D (last acknowledged renewal + TTL) lies before it + TTL.
      long stopped = System.nanoTime();
      apps.etcd().member(0).stop();
      Duration untilDeadline = TTL.minusNanos(System.nanoTime() - stopped);
      await("no instance claims the office by the lease deadline")
          .atMost(untilDeadline)
          .pollDelay(Duration.ZERO)
          .pollInterval(Duration.ofMillis(20))
          .until(() -> apps.running().stream().noneMatch(SampleAppProcess::claims));
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
          .until(() -> apps.running().stream().noneMatch(SampleAppProcess::claims));
      await("health DOWN on every instance")
          .atMost(Duration.ofSeconds(15))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> apps.askAll(SampleAppProcess::health).values(),
              answers -> answers.stream().allMatch(Optional.of("DOWN")::equals));
      assertThat(apps.askAll(SampleAppProcess::conchHealth))
          .allSatisfy(
              (app, health) -> assertThat(health).as("conch health of %s", app).contains("DOWN"));
      assertThat(apps.askAll(SampleAppProcess::assertStatus))
          .allSatisfy(
              (app, status) ->
                  assertThat(status).as("assert URL of %s without etcd", app).isEqualTo(503));
      assertThat(apps.askAll(SampleAppProcess::leaderStatus))
          .allSatisfy(
              (app, status) ->
                  assertThat(status).as("leader view of %s without etcd", app).isEqualTo(503));

      long restarted = System.nanoTime();
      apps.etcd().member(0).start();
      // Not a bound of conch's own: each client reconnects on gRPC's back-off (1 s growing by 1.6
      // each attempt), and keys of leases given up during the outage stay until their owner
      // reaches etcd again or etcd, which restores leases with a fresh TTL, expires them.
      Elected again = apps.awaitOneLeader(Duration.ofSeconds(45));
      Figures.record(
          String.format(
              "etcd back: %s leads with token %d, %d ms after etcd was started again",
              again.app().id(),
              again.token(),
              Duration.ofNanos(System.nanoTime() - restarted).toMillis()));
      assertThat(again.token()).isGreaterThan(first.token());
      await("health UP on every instance")
          .atMost(Duration.ofSeconds(15))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> apps.askAll(SampleAppProcess::health).values(),
              answers -> answers.stream().allMatch(Optional.of("UP")::equals));
    }
  }
}
