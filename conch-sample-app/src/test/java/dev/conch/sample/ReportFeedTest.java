package dev.conch.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.State;
import dev.conch.local.LocalOffices;
import dev.conch.spring.boot.test.AutoConfigureTestOffices;
import dev.conch.spring.boot.test.TestOffices;
import dev.conch.spring.leaderonly.CurrentLeadership;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The sample's leader-only parts as an application tests them with the test kit: no etcd, and the
 * test decides who leads. Each test starts with this instance leading.
 */
@SpringBootTest(properties = {"sample.report.interval=100ms", "conch.candidate.id=me"})
@AutoConfigureTestOffices
@Timeout(60)
class ReportFeedTest {

  @Autowired TestOffices offices;

  @Autowired ReportFeed feed;

  @Test
  void feedRunsWhileLeadingAndStopsWhenAnotherInstanceLeads() {
    String office = this.offices.defaultOffice();
    assertThat(this.offices.election(office).state()).isEqualTo(State.LEADING);
    await().atMost(Duration.ofSeconds(10)).until(this.feed::isRunning);
    this.offices.awaitRuns(ReportFeed.class, "tick", 2);
    this.offices.electOther(office, "other-instance");
    assertThat(this.feed.isRunning()).isFalse();
    long ran = this.offices.runs(ReportFeed.class, "tick");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> this.offices.skips(ReportFeed.class, "tick") >= 2);
    assertThat(this.offices.runs(ReportFeed.class, "tick")).isEqualTo(ran);
    this.offices.grant(office);
    await().atMost(Duration.ofSeconds(10)).until(this.feed::isRunning);
  }

  @Test
  void revokedInstanceStaysOutUntilGranted() {
    String office = this.offices.defaultOffice();
    this.offices.revoke(office);
    assertThat(this.feed.isRunning()).isFalse();
    assertThat(this.offices.store().leader(office)).isEmpty();
    this.offices.grant(office);
    await().atMost(Duration.ofSeconds(10)).until(this.feed::isRunning);
  }

  @Test
  void tickWithoutSpringCountsInTheElectionsTerm() throws Exception {
    Election election =
        new LocalOffices().election(ElectionOptions.builder("reports").candidateId("me").build());
    try (election) {
      election.start();
      assertThat(election.awaitLeadership(Duration.ofSeconds(10))).isTrue();
      ReportFeed unmanaged = new ReportFeed();
      CurrentLeadership.callAsLeader(
          election,
          () -> {
            unmanaged.tick();
            return null;
          });
      assertThat(unmanaged.ticks()).isEqualTo(1);
    }
  }
}
