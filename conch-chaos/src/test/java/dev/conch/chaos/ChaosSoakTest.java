package dev.conch.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The soak's quick mode: 30 s of random faults against real etcd and real supervisors (two {@code
 * conch elect}, one sample app with the Spring runner), then the checks that hold at any length,
 * the office's recorded history against the terms seen among them. The long mode's figures are in
 * docs/chaos.md.
 */
class ChaosSoakTest {

  /**
   * How long faults are injected, per member count: {@code -Dconch.chaos.seconds=60} for a longer
   * run. 30 s by default (two to four faults each), to keep {@code bin/test} within its budget.
   */
  private static final Duration FAULTS_FOR =
      Duration.ofSeconds(Long.getLong("conch.chaos.seconds", 30));

  @TempDir Path dir;

  @ParameterizedTest(name = "{0} etcd member(s)")
  @ValueSource(ints = {1, 3})
  void noOverlapButFrozenOnesNoOrphansAndALeaderSoonAfterEachFault(int members) throws Exception {
    Path launcher = Path.of("..", "bin", "conch").toAbsolutePath().normalize();
    assertThat(Files.isExecutable(launcher)).as(launcher + " (built by the reactor)").isTrue();
    Path sampleApp =
        Path.of("..", "conch-sample-app", "target", "conch-sample-app.jar")
            .toAbsolutePath()
            .normalize();
    assertThat(sampleApp).as("built by the reactor").isRegularFile();
    SoakOptions options =
        new SoakOptions(
            members,
            3,
            FAULTS_FOR,
            Duration.ofSeconds(3),
            Duration.ofMillis(500),
            System.nanoTime(),
            SoakOptions.allFaults(members),
            launcher,
            1,
            sampleApp);

    SoakReport report = new ChaosSoak(options, dir).run();
    System.out.print(report.render());

    assertThat(report.faults).isNotEmpty();
    assertThat(report.intervals).isNotEmpty();
    assertThat(report.unexplainedOverlaps()).as(report.render()).isZero();
    assertThat(report.frozenOverlapsFenced()).as(report.render()).isTrue();
    assertThat(report.tokensIncrease).as(report.render()).isTrue();
    assertThat(report.orphans).as(report.render()).isZero();
    // Issue 20: every command wrote through the fence; none of the committed writes is stale.
    assertThat(report.writes.committed()).as(report.render()).isPositive();
    assertThat(report.writes.staleCommits()).as(report.render()).isZero();
    // Issue 31: the office's history, read once every supervisor stopped and every recorded term
    // had its end, records every term that ran, with its supervisor and an end of the kind the
    // fault that ended it leaves; and every other entry is a term that won and ended at once.
    HistoryCheck history = report.history;
    assertThat(history).isNotNull();
    assertThat(history.history.error()).as(report.render()).isNull();
    assertThat(history.observed).isEqualTo(report.intervals.size());
    assertThat(history.missing()).as(report.render()).isEmpty();
    assertThat(history.wrong()).as(report.render()).isEmpty();
    assertThat(history.unexplained).as(report.render()).isEmpty();
    assertThat(history.rightKind).as(report.render()).isEqualTo(history.observed);
    // Issue 8: one leader again within TTL + 2 s after each fault ends.
    assertThat(Duration.ofNanos(report.maxRecovery()))
        .as(report.render())
        .isLessThanOrEqualTo(options.ttl().plusSeconds(2));
  }
}
