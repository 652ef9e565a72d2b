package dev.conch.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.sample.SampleApps.Elected;
import dev.conch.sample.SampleApps.HandOver;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A leader killed with SIGKILL cannot resign: its key stays until etcd expires its lease, so
 * another instance leads within the TTL, plus etcd's expiry scan (500 ms) and a campaign.
 */
class CrashHandOverIT {

  private static final Duration TTL = Duration.ofSeconds(4);

  /** The bound: TTL + 1.5 s. */
  private static final Duration BOUND = TTL.plusMillis(1500);

  @Test
  void leaderKilledWithSigkillIsSucceededWithinTtlPlusOneAndAHalfSeconds() throws Exception {
    try (SampleApps apps = SampleApps.start("crash", 3, "--conch.ttl=" + TTL.toSeconds() + "s")) {
      Elected first = apps.awaitOneLeader(SampleApps.START_TIMEOUT);
      Elected second = killLeader(apps, first);
      Elected third = killLeader(apps, second);

      assertThat(List.of(first.token(), second.token(), third.token()))
          .as("tokens of successive leaders")
          .isSorted()
          .doesNotHaveDuplicates();
    }
  }

  /** Kills the leader and returns its successor, failing beyond the bound. */
  private static Elected killLeader(SampleApps apps, Elected leader) throws InterruptedException {
    HandOver handOver = apps.stopLeader(leader, SampleAppProcess::kill, BOUND.multipliedBy(3));
    Figures.record(handOver.describe("crash (SIGKILL, ttl " + TTL.toSeconds() + "s)"));
    assertThat(handOver.to().token()).isGreaterThan(leader.token());
    assertThat(handOver.observed())
        .as("time from SIGKILL to the successor's assert URL answering 200")
        .isLessThan(BOUND);
    return handOver.to();
  }
}
