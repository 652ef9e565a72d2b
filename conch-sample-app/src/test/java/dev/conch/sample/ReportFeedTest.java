package dev.conch.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.spring.boot.test.AutoConfigureTestOffices;
import dev.conch.spring.boot.test.TestOffices;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The sample's leader-only parts as an application tests them with the test kit: no etcd, and the
 * test decides who leads.
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
    this.offices.awaitLeading(office);
    await().atMost(Duration.ofSeconds(10)).until(this.feed::isRunning);
    this.offices.awaitRuns("ReportFeed.tick()", 2);
    this.offices.electOther(office, "other-instance");
    assertThat(this.feed.isRunning()).isFalse();
    long ran = this.offices.runs("ReportFeed.tick()");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> this.offices.skips("ReportFeed.tick()") >= 2);
    assertThat(this.offices.runs("ReportFeed.tick()")).isEqualTo(ran);
    this.offices.grant(office);
    await().atMost(Duration.ofSeconds(10)).until(this.feed::isRunning);
  }
}
