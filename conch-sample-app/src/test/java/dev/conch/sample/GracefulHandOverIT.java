package dev.conch.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.sample.SampleApps.Elected;
import dev.conch.sample.SampleApps.HandOver;
import dev.conch.test.Etcdctl;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A leader stopped with SIGTERM resigns on its way out, so another instance leads within a second
 * although the lease TTL is 30 s: were the hand-over waiting for the lease, it would take about 30
 * s and could not be mistaken for this.
 */
class GracefulHandOverIT {

  private static final Duration TTL = Duration.ofSeconds(30);

  private static final Duration BOUND = Duration.ofSeconds(1);

  @Test
  void leaderStoppedWithSigtermIsSucceededWithinOneSecondWithALargerToken() throws Exception {
    try (SampleApps apps =
        SampleApps.start("graceful", 3, "--conch.ttl=" + TTL.toSeconds() + "s")) {
      Elected first = apps.awaitOneLeader(SampleApps.START_TIMEOUT);
      showsTheLeaderAndStoresTokenStampedReports(apps, first);
      Elected second = stopLeader(apps, first);
      Elected third = stopLeader(apps, second);

      assertThat(List.of(first.token(), second.token(), third.token()))
          .as("tokens of successive leaders")
          .isSorted()
          .doesNotHaveDuplicates();
    }
  }

  /**
   * The page at {@code /} of every instance names the leader and its token, and the leader's
   * reports reach etcd through the fenced write, stamped with its token.
   */
  private static void showsTheLeaderAndStoresTokenStampedReports(SampleApps apps, Elected leader) {
    String named = leader.app().id() + " (token " + leader.token() + ")";
    for (SampleAppProcess app : apps.running()) {
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
                            apps.etcd().endpoints(),
                            Duration.ofSeconds(5),
                            "get",
                            "--print-value-only",
                            "/conch-sample/reports/latest")
                        .stdout(),
                value -> !value.isBlank());
    assertThat(report)
        .contains("\"by\":\"" + leader.app().id() + "\"")
        .contains("\"token\":" + leader.token());
  }

  /** Stops the leader with SIGTERM and returns its successor, failing beyond the bound. */
  private static Elected stopLeader(SampleApps apps, Elected leader) throws InterruptedException {
    HandOver handOver = apps.stopLeader(leader, SampleAppProcess::terminate, TTL);
    Figures.record(handOver.describe("graceful (SIGTERM, ttl " + TTL.toSeconds() + "s)"));
    assertThat(handOver.to().token()).isGreaterThan(leader.token());
    assertThat(handOver.observed())
        .as("time from SIGTERM to the successor's assert URL answering 200")
        .isLessThan(BOUND);
    return handOver.to();
  }
}
