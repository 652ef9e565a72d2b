package dev.conch.spring.boot.test;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.Leadership;
import dev.conch.spring.leaderonly.JobRecord;
import dev.conch.spring.leaderonly.LeaderOnly;
import dev.conch.spring.leaderonly.Misfire;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * The test kit drives a missed firing without etcd: the office is held vacant over firings, this
 * instance is granted it again, and the job's RUN_ONCE policy runs the latest missed firing in the
 * new term, as the kit's last run shows.
 */
@SpringBootTest(properties = "spring.application.name=reports")
@AutoConfigureTestOffices
@Timeout(60)
class TestOfficesMisfireTest {

  @Autowired TestOffices offices;

  @Test
  void firingMissedWhileVacantRunsOnceInTheNextTerm() {
    this.offices.awaitRuns(Report.class, "everyTwoSeconds", 1);
    Leadership ended = this.offices.expire("reports");
    long skipped = this.offices.skips(Report.class, "everyTwoSeconds");
    // Vacant over two firings, not one: a run is recorded when it reaches conch, a little after
    // the scheduler fired it (the first run of a context the most), so one skip may come before
    // the recorded cadence's next moment, which is then not missed yet.
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> this.offices.skips(Report.class, "everyTwoSeconds") >= skipped + 2);

    Leadership term = this.offices.grant("reports");

    // Run at once, not at the next firing two seconds on: for a time before it started.
    JobRecord recovered =
        this.offices.awaitLastRun(
            Report.class,
            "everyTwoSeconds",
            run -> run.token() == term.token() && run.scheduled().isBefore(run.started()));
    assertThat(term.token()).isGreaterThan(ended.token());
    assertThat(recovered.outcome()).isIn(JobRecord.Outcome.RUNNING, JobRecord.Outcome.DONE);
  }

  @SpringBootApplication
  @EnableScheduling
  static class App {

    @Bean
    Report report() {
      return new Report();
    }
  }

  static class Report {

    @Scheduled(fixedRate = 2000)
    @LeaderOnly(misfire = Misfire.RUN_ONCE)
    void everyTwoSeconds() {}
  }
}
