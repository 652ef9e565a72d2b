package dev.conch.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.local.LocalOffices;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The report job against conch's in-memory election, as an application unit-tests its leader-only
 * work without etcd: {@link LocalOffices} decides who leads and keeps what the fenced writes
 * stored.
 */
class ReportJobTest {

  private static final String KEY = "/conch-sample/reports/latest";

  private final LocalOffices offices = new LocalOffices();

  private final Election first =
      this.offices.election(ElectionOptions.builder("reports").candidateId("first").build());

  private final Election second =
      this.offices.election(ElectionOptions.builder("reports").candidateId("second").build());

  @AfterEach
  void close() {
    this.first.close();
    this.second.close();
  }

  @Test
  void leaderStoresAReportStampedWithItsToken() throws InterruptedException {
    this.first.start();
    assertThat(this.first.awaitLeadership(Duration.ofSeconds(5))).isTrue();
    ReportJob job = new ReportJob(this.first, KEY);

    job.report();

    long token = this.first.token().orElseThrow();
    assertThat(this.offices.value(KEY))
        .hasValueSatisfying(
            value -> assertThat(value).contains("\"by\":\"first\"").contains("\"token\":" + token));
    assertThat(job.lastReport()).hasValueSatisfying(report -> assertThat(report.stored()).isTrue());
  }

  @Test
  void followerMakesNoReport() throws InterruptedException {
    this.first.start();
    assertThat(this.first.awaitLeadership(Duration.ofSeconds(5))).isTrue();
    this.second.start();
    ReportJob job = new ReportJob(this.second, KEY);

    job.report();

    assertThat(job.lastReport()).isEmpty();
    assertThat(this.offices.value(KEY)).isEmpty();
  }

  @Test
  void formerLeaderStopsReportingOnceAnotherLeads() throws InterruptedException {
    this.first.start();
    assertThat(this.first.awaitLeadership(Duration.ofSeconds(5))).isTrue();
    this.second.start();
    ReportJob former = new ReportJob(this.first, KEY);
    ReportJob next = new ReportJob(this.second, KEY);
    former.report();
    long formerToken = this.first.token().orElseThrow();

    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> this.offices.grant("reports", "second") && this.second.isLeader());
    former.report();
    next.report();

    assertThat(former.lastReport()).hasValueSatisfying(r -> assertThat(r.number()).isEqualTo(1));
    assertThat(next.lastReport())
        .hasValueSatisfying(r -> assertThat(r.token()).isGreaterThan(formerToken));
    assertThat(this.offices.value(KEY)).hasValueSatisfying(v -> assertThat(v).contains("second"));
  }
}
