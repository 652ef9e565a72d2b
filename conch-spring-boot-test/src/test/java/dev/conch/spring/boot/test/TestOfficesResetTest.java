package dev.conch.spring.boot.test;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.Holder;
import dev.conch.State;
import dev.conch.spring.leaderonly.LeaderOnly;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * Two tests in one cached context: what the first scripts (another leader, a revoked office,
 * counts) is gone when the second starts.
 */
@SpringBootTest(
    properties = {"spring.application.name=billing", "conch.candidate.id=me"},
    webEnvironment = SpringBootTest.WebEnvironment.NONE)
@AutoConfigureTestOffices
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(60)
class TestOfficesResetTest {

  private static ApplicationContext first;

  @Autowired TestOffices offices;

  @Autowired Job job;

  @Autowired ApplicationContext context;

  @Test
  @Order(1)
  void firstTestLeavesAnotherLeaderARevokedOfficeAndCounts() {
    first = this.context;
    this.job.run();
    this.offices.electOther("billing", "node-b");
    this.job.run();
    this.offices.grant("reports");
    this.offices.revoke("reports");
    assertThat(this.offices.officeRuns("billing")).isEqualTo(1);
    assertThat(this.offices.officeSkips("billing")).isEqualTo(1);
  }

  @Test
  @Order(2)
  void secondTestSeesTheStartState() {
    assertThat(this.context).isSameAs(first);
    for (String office : new String[] {"billing", "reports"}) {
      assertThat(this.offices.election(office).state()).as(office).isEqualTo(State.LEADING);
      assertThat(this.offices.store().leader(office).map(Holder::id)).as(office).contains("me");
    }
    assertThat(this.offices.officeRuns("billing")).isZero();
    assertThat(this.offices.officeSkips("billing")).isZero();
    assertThat(this.offices.runs(Job.class, "run")).isZero();
  }

  @SpringBootConfiguration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class App {

    @Bean
    Job job() {
      return new Job();
    }
  }

  static class Job {

    @LeaderOnly
    void run() {}

    @LeaderOnly("reports")
    void report() {}
  }
}
