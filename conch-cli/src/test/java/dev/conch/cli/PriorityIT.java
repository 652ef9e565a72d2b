package dev.conch.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.test.EtcdCluster;
import dev.conch.test.EtcdExtension;
import dev.conch.test.Etcdctl;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code --priority} and {@code --min-tenure}: the office of {@code conch elect} is a group of one,
 * so a leader hands it to a live candidate of higher priority after the tenure, never to an equal.
 */
@Timeout(120)
class PriorityIT {

  private static final Duration WAIT = Duration.ofSeconds(30);

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private String endpoints;
  private Conch conch;

  @BeforeEach
  void setUp(EtcdCluster cluster) {
    endpoints = cluster.endpoints();
    conch = Conch.at(endpoints);
  }

  @Test
  void aLeaderHandsTheOfficeToAHigherPriorityAfterTheMinimumTenure() {
    try (Conch.Running low =
            conch.start(
                "elect",
                "pref",
                "--min-tenure",
                "1s",
                "--",
                "sh",
                "-c",
                "echo low; exec sleep 60");
        Conch.Running high = startAfter(low, "low", "pref", "1", "high")) {
      high.awaitLine("high"::equals, WAIT);

      // The lower one's child was stopped as on a resign; the holder JSON says who is preferred.
      await().atMost(WAIT).until(() -> !low.isAlive());
      Etcdctl.Result key =
          Etcdctl.run(
              endpoints, WAIT, "get", "--prefix", "/conch/v1/elect/pref/", "--print-value-only");
      assertThat(key.stdout()).contains("\"priority\":1");
      // The runner ends as when its election is resigned under it.
      Conch.Result ended = low.result();
      assertThat(ended.status()).as(ended.stderr()).isEqualTo(143);
    }
  }

  @Test
  void withRestartTheLowerOneStandsAgainAndLeadsWhenTheHigherOneStops() {
    try (Conch.Running low =
            conch.start(
                "elect",
                "again",
                "--restart",
                "--min-tenure",
                "1s",
                "--",
                "sh",
                "-c",
                "echo low; exec sleep 60");
        Conch.Running high = startAfter(low, "low", "again", "1", "high")) {
      high.awaitLine("high"::equals, WAIT);
      low.awaitErrorLine(line -> line.contains("handed over; campaigning again"), WAIT);
      assertThat(low.isAlive()).isTrue();

      high.signal("TERM");

      await().atMost(WAIT).until(() -> low.lines().stream().filter("low"::equals).count() == 2);
    }
  }

  @Test
  void equalPrioritiesNeverMove() {
    try (Conch.Running first =
            conch.start(
                "elect",
                "same",
                "--priority",
                "2",
                "--min-tenure",
                "0s",
                "--",
                "sh",
                "-c",
                "echo first; exec sleep 60");
        Conch.Running second = startAfter(first, "first", "same", "2", "second")) {
      second.awaitErrorLine(line -> line.contains("following"), WAIT);

      // Past the group's delay (5 s) and the tenure: the first still leads.
      await()
          .during(Duration.ofSeconds(7))
          .atMost(WAIT)
          .until(() -> first.isAlive() && !second.lines().contains("second"));
    }
  }

  /** Starts a second candidate once {@code first} printed {@code line} (it leads). */
  private Conch.Running startAfter(
      Conch.Running first, String line, String office, String priority, String says) {
    first.awaitLine(line::equals, WAIT);
    return conch.start(
        "elect",
        office,
        "--priority",
        priority,
        "--min-tenure",
        "0s",
        "--",
        "sh",
        "-c",
        "echo " + says + "; exec sleep 60");
  }
}
