package dev.conch.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.chaos.SoakOptions.Fault;
import dev.conch.chaos.SoakReport.FaultRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report's steadiness figures, from files as the supervised commands write them. */
class SoakReportTest {

  private static final long S = 1_000_000_000L;
  private static final long T0 = 1_800_000_000L * S;

  @TempDir Path dir;

  @Test
  void underBenignFaultsEveryTermThatEndedBeforeTheRunIsANeedlessLoss() throws IOException {
    term(1, 10, -5, 20); // began before the run, lost 20 s in
    term(2, 12, 21, 3_600); // still running when the soak stopped it
    log(1, "2027-01-15T08:00:05.000Z conch WARN lease 1a renewal failed, long before");
    log(1, "2027-01-15T08:00:17.000Z conch INFO nothing to see");
    log(1, "2027-01-15T08:00:17.500Z conch WARN lease 1a renewal failed, retrying: timed out");
    log(1, "2027-01-15T08:00:20.400Z conch WARN office chaos: leadership lost (RENEWAL_FAILED)");
    List<FaultRecord> faults =
        List.of(
            new FaultRecord(Fault.STALL_RAFT_LEADER, "conch-0 (raft leader)", -1, at(19), at(20)));

    SoakReport report =
        new SoakReport(dir, faults, 0, at(0), at(3_600), Duration.ofSeconds(10), true);

    assertThat(report.termsStartedInRun()).isEqualTo(1);
    assertThat(report.termsPerHour()).isEqualTo(1.0);
    assertThat(report.needlessLosses()).hasSize(1);
    SoakReport.Loss loss = report.needlessLosses().get(0);
    assertThat(loss.term().token()).isEqualTo(10);
    assertThat(loss.after().kind()).isEqualTo(Fault.STALL_RAFT_LEADER);
    assertThat(loss.reason()).isEqualTo("RENEWAL_FAILED");
    assertThat(report.safe()).isTrue();
    assertThat(report.render())
        .contains("terms per hour under benign faults: 1.0")
        .contains("needless losses: 1 of 1 losses")
        .contains("token 10 (candidate 1, a 25.0 s term) ended")
        .contains("(RENEWAL_FAILED), 1000 ms after STALL_RAFT_LEADER conch-0 (raft leader)")
        // What its supervisor warned of before the loss, so that a failed run says why.
        .contains("      2027-01-15T08:00:17.500Z conch WARN lease 1a renewal failed, retrying")
        .doesNotContain("long before")
        .doesNotContain("nothing to see");
  }

  @Test
  void aLossDuringOrSoonAfterADisruptiveFaultIsNotNeedless() throws IOException {
    term(0, 10, -5, 20); // its supervisor was killed
    term(1, 12, 21, 40); // lost 40 s in, 13 s after the partition healed: ttl 3 + 2 s is over
    term(2, 15, 41, 3_600);
    List<FaultRecord> faults =
        List.of(
            new FaultRecord(Fault.KILL_SUPERVISOR, "supervisor 0", 0, at(20), at(20)),
            new FaultRecord(Fault.PARTITION, "supervisor 2", 2, at(22), at(27)));

    SoakReport report =
        new SoakReport(dir, faults, 0, at(0), at(3_600), Duration.ofSeconds(3), false);

    assertThat(report.losses).hasSize(2);
    assertThat(report.needlessLosses())
        .extracting(l -> l.term().token(), SoakReport.Loss::reason)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(12L, "no reason logged"));
    assertThat(report.render()).contains("terms per hour: 2.0");
  }

  @Test
  void aTermWhoseLastBeatCameJustBeforeTheKillThatEndedItIsNotNeedless() throws IOException {
    term(0, 10, -5, 20); // last beat at 20 s; the kill was stamped 41 ms later, once done
    term(1, 12, 21, 3_600);
    List<FaultRecord> faults =
        List.of(
            new FaultRecord(
                Fault.KILL_SUPERVISOR,
                "supervisor 0",
                0,
                at(20) + 41_000_000,
                at(20) + 41_000_000));

    SoakReport report =
        new SoakReport(dir, faults, 0, at(0), at(3_600), Duration.ofSeconds(3), false);

    assertThat(report.losses).hasSize(1);
    assertThat(report.needlessLosses()).isEmpty();
  }

  @Test
  void aLossWhileEtcdAnsweredNoRenewalForLongerThanTheBudgetToleratesIsEtcdsNotNeedless()
      throws IOException {
    term(1, 10, -5, 20); // lost 20 s in, 1.5 s after a raft-leader stall healed
    term(2, 12, 21, 3_600);
    List<FaultRecord> faults =
        List.of(
            new FaultRecord(
                Fault.STALL_RAFT_LEADER, "conch-0 (raft leader)", -1, at(17), at(18) + S / 2));
    // TTL 10 s, kill-after 5 s: a 4 s renewal window, 2.5 s of silence tolerated (W - I - A).
    List<Long> answers = new ArrayList<>();
    for (long ms = 0; ms <= 60_000; ms += 100) {
      long t = T0 + ms * 1_000_000;
      boolean silent = t > at(16) + S * 7 / 10 && t < at(20); // 3.3 s without an answer
      if (!silent) {
        answers.add(t);
      }
    }
    SoakReport.EtcdProbe silentEtcd =
        SoakReport.EtcdProbe.of(answers, Duration.ofSeconds(10), Duration.ofSeconds(5));

    SoakReport report =
        new SoakReport(
            dir, faults, 0, at(0), at(3_600), Duration.ofSeconds(10), true, null, silentEtcd);

    assertThat(report.needlessLosses()).isEmpty();
    assertThat(report.etcdLosses()).extracting(l -> l.term().token()).containsExactly(10L);
    assertThat(report.etcdGap(at(20))).isGreaterThanOrEqualTo(Duration.ofMillis(3_200));
    assertThat(report.render())
        .contains("loss explained by etcd: token 10 (candidate 1)")
        .contains("(the renewal budget tolerates 2500 ms)")
        .contains("needless losses: 0 of 1 losses");

    // The same loss while etcd answered the probe throughout is conch's: needless.
    List<Long> always = new ArrayList<>();
    for (long ms = 0; ms <= 60_000; ms += 100) {
      always.add(T0 + ms * 1_000_000);
    }
    SoakReport answered =
        new SoakReport(
            dir,
            faults,
            0,
            at(0),
            at(3_600),
            Duration.ofSeconds(10),
            true,
            null,
            SoakReport.EtcdProbe.of(always, Duration.ofSeconds(10), Duration.ofSeconds(5)));
    assertThat(answered.needlessLosses()).extracting(l -> l.term().token()).containsExactly(10L);
    assertThat(answered.etcdLosses()).isEmpty();
  }

  private static long at(long seconds) {
    return T0 + seconds * S;
  }

  /** A command's files: {@code <candidate> <token> <start> <pid>} and its last beat. */
  private void term(int candidate, long token, long start, long end) throws IOException {
    String name = "child-" + token + "-" + (1000 + token);
    Files.writeString(
        dir.resolve(name + ".start"),
        candidate + " " + token + " " + at(start) + " " + (1000 + token) + "\n");
    Files.writeString(dir.resolve(name + ".beat"), at(end) + "\n");
  }

  private void log(int candidate, String line) throws IOException {
    Files.writeString(
        dir.resolve("supervisor-" + candidate + ".log"),
        line + "\n",
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
  }
}
