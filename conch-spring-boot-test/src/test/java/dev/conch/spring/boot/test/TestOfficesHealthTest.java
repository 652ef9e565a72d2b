package dev.conch.spring.boot.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.LossReason;
import dev.conch.State;
import dev.conch.spring.LeadershipLostEvent;
import dev.conch.spring.health.CandidacyEvent;
import dev.conch.spring.health.CandidacyPausedEvent;
import dev.conch.spring.health.CandidacyResumedEvent;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;

/**
 * The test kit drives health-gated candidacy without etcd and without breaking what the indicator
 * checks: {@code healthDown} pauses the candidacy (the leader resigns), {@code healthUp} resumes
 * it.
 */
@SpringBootTest(
    properties = {
      "spring.application.name=billing",
      "conch.candidate.id=me",
      "conch.health.require=db",
      "conch.health.quarantine=0s"
    },
    webEnvironment = SpringBootTest.WebEnvironment.NONE)
@AutoConfigureTestOffices
@Timeout(60)
class TestOfficesHealthTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  @Autowired TestOffices offices;

  @Autowired App app;

  @Test
  void healthDownMakesTheLeaderResignAndHealthUpLetsItLeadAgain() {
    Election billing = this.offices.election("billing");
    long token = this.offices.awaitLeading("billing").token();
    this.offices.healthDown("db");
    assertThat(billing.isLeader()).isFalse();
    assertThat(billing.state()).isEqualTo(State.DENIED);
    // The events reach the application's listeners on their own thread: soon, not before.
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(this.app.lost)
                    .singleElement()
                    .satisfies(
                        lost -> {
                          assertThat(lost.getToken()).isEqualTo(token);
                          assertThat(lost.getReason()).isEqualTo(LossReason.RESIGNED);
                        }));
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(this.app.candidacy)
                    .singleElement()
                    .isInstanceOfSatisfying(
                        CandidacyPausedEvent.class,
                        paused ->
                            assertThat(paused.getReason()).isEqualTo("db is DOWN (simulated)")));
    this.offices.healthUp("db");
    assertThat(this.offices.awaitLeading("billing").token()).isGreaterThan(token);
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> assertThat(this.app.candidacy).last().isInstanceOf(CandidacyResumedEvent.class));
  }

  @Test
  void anIndicatorNoOfficeRequiresIsRefusedNamingTheRequiredOnes() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> this.offices.healthDown("redis"))
        .withMessage("No office requires health indicator 'redis'; required: [db]");
  }

  @SpringBootConfiguration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class App {

    final List<LeadershipLostEvent> lost = new CopyOnWriteArrayList<>();

    final List<CandidacyEvent> candidacy = new CopyOnWriteArrayList<>();

    @Bean
    HealthIndicator dbHealthIndicator() {
      return () -> Health.up().build();
    }

    @EventListener
    void on(LeadershipLostEvent event) {
      this.lost.add(event);
    }

    @EventListener
    void on(CandidacyEvent event) {
      this.candidacy.add(event);
    }
  }
}
