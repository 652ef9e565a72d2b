package dev.conch.spring.boot.autoconfigure.health;

import static dev.conch.spring.boot.autoconfigure.ConchTestSupport.freshOffice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.LossReason;
import dev.conch.State;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.health.CandidacyPausedEvent;
import dev.conch.spring.health.CandidacyResumedEvent;
import dev.conch.test.EtcdExtension;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Two instances against a real etcd member, each with a health indicator {@code db} of its own that
 * the office requires: the leader whose {@code db} turns DOWN resigns, the other leads, and the
 * unhealthy one does not lead again while DOWN nor before its quarantine ends. There is no health
 * endpoint here (no {@code HealthEndpointAutoConfiguration}): the gate asks {@code healthForPath}
 * of an endpoint of its own over the registry, every contributor a member of its primary group.
 */
@Timeout(120)
class HealthGatedCandidacyEtcdTest {

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private static final Duration WAIT = Duration.ofSeconds(20);

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ConchAutoConfiguration.class,
                  HealthContributorRegistryAutoConfiguration.class,
                  CandidacyHealthAutoConfiguration.class))
          .withBean("dbHealthIndicator", ToggledHealthIndicator.class)
          .withBean(CandidacyRecorder.class)
          .withPropertyValues("conch.ttl=30s", "conch.etcd.timeout=2s");

  private ApplicationContextRunner instance(String office, String id, String quarantine) {
    return this.contextRunner.withPropertyValues(
        "conch.etcd.endpoints=" + etcd.cluster().endpoints(),
        "conch.office=" + office,
        "conch.candidate.id=" + id,
        "conch.offices." + office + ".require-health=db",
        "conch.offices." + office + ".quarantine=" + quarantine);
  }

  @Test
  void leaderWhoseIndicatorTurnsDownResignsAndDoesNotLeadWhileDown() {
    String office = freshOffice("health");
    instance(office, "a", "0s")
        .run(
            a -> {
              Election first = a.getBean(Election.class);
              assertThat(first.awaitLeadership(WAIT)).isTrue();
              instance(office, "b", "0s")
                  .run(
                      b -> {
                        Election second = b.getBean(Election.class);
                        await().atMost(WAIT).until(() -> second.state() == State.FOLLOWING);
                        a.getBean(ToggledHealthIndicator.class).down();
                        assertThat(second.awaitLeadership(WAIT)).isTrue();
                        CandidacyRecorder recorded = a.getBean(CandidacyRecorder.class);
                        await().atMost(WAIT).until(() -> first.state() == State.DENIED);
                        assertThat(recorded.losses)
                            .singleElement()
                            .satisfies(
                                lost ->
                                    assertThat(lost.getReason()).isEqualTo(LossReason.RESIGNED));
                        CandidacyPausedEvent paused = recorded.lastPause();
                        assertThat(paused.getIndicator()).isEqualTo("db");
                        assertThat(paused.getReason()).isEqualTo("db is DOWN");
                        assertThat(paused.isResigned()).isTrue();
                        // The office's history says why the term ended: the indicator.
                        assertThat(second.history(2).get(0).detail())
                            .isEqualTo("the health it requires failed: db is DOWN");
                      });
              // b is gone: the office is vacant, and a, still DOWN, stays out of it.
              await()
                  .during(Duration.ofSeconds(3))
                  .atMost(WAIT)
                  .until(() -> !first.isLeader() && first.state() == State.DENIED);
              a.getBean(ToggledHealthIndicator.class).up();
              assertThat(first.awaitLeadership(WAIT)).isTrue();
              assertThat(a.getBean(CandidacyRecorder.class).candidacy)
                  .last()
                  .isInstanceOf(CandidacyResumedEvent.class);
            });
  }

  @Test
  void leaderThatResignedAsUnhealthyDoesNotLeadBeforeItsQuarantineEnds() {
    String office = freshOffice("quarantine");
    instance(office, "a", "6s")
        .run(
            a -> {
              Election first = a.getBean(Election.class);
              assertThat(first.awaitLeadership(WAIT)).isTrue();
              instance(office, "b", "6s")
                  .run(
                      b -> {
                        Election second = b.getBean(Election.class);
                        await().atMost(WAIT).until(() -> second.state() == State.FOLLOWING);
                        a.getBean(ToggledHealthIndicator.class).down();
                        assertThat(second.awaitLeadership(WAIT)).isTrue();
                        // UP again at once: only the quarantine keeps a out from here on.
                        a.getBean(ToggledHealthIndicator.class).up();
                      });
              Instant until =
                  a.getBean(CandidacyRecorder.class).lastPause().getUntil().orElseThrow();
              assertThat(first.awaitLeadership(WAIT)).isTrue();
              // It campaigned (and so won) only once the quarantine was over.
              assertThat(first.leadership().orElseThrow().holder().since()).isAfterOrEqualTo(until);
            });
  }
}
