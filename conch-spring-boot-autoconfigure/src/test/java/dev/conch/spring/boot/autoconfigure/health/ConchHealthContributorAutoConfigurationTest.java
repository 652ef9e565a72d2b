package dev.conch.spring.boot.autoconfigure.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.State;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.boot.health.ConchHealthIndicator;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** When the {@code conch} health contributor exists, and what it says without a real etcd. */
class ConchHealthContributorAutoConfigurationTest {

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ConchAutoConfiguration.class, ConchHealthContributorAutoConfiguration.class))
          .withPropertyValues("conch.office=billing");

  @Test
  void healthIndicatorIsNamedConch() {
    this.contextRunner
        .withPropertyValues("conch.standalone=true")
        .run(
            context ->
                assertThat(context)
                    .hasSingleBean(ConchHealthIndicator.class)
                    .hasBean("conchHealthIndicator"));
  }

  @Test
  void healthIndicatorCanBeDisabled() {
    this.contextRunner
        .withPropertyValues("conch.standalone=true", "management.health.conch.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean(ConchHealthIndicator.class));
  }

  @Test
  void withoutHealthSupportThereIsNoIndicatorAndTheElectionsStillWork() {
    this.contextRunner
        .withPropertyValues("conch.standalone=true")
        .withClassLoader(new FilteredClassLoader("org.springframework.boot.health"))
        .run(
            context -> {
              assertThat(context).hasNotFailed().doesNotHaveBean(ConchHealthIndicator.class);
              assertThat(context).hasSingleBean(Election.class);
            });
  }

  @Test
  void standaloneLeaderIsUpWithItsStateLeaderAndToken() {
    this.contextRunner
        .withPropertyValues("conch.standalone=true", "conch.candidate.id=me")
        .run(
            context -> {
              Election election = context.getBean(Election.class);
              assertThat(election.awaitLeadership(Duration.ofSeconds(10))).isTrue();

              Health health = context.getBean(ConchHealthIndicator.class).health();

              assertThat(health.getStatus()).isEqualTo(Status.UP);
              assertThat(health.getDetails().get("offices"))
                  .isEqualTo(
                      Map.of(
                          "billing",
                          Map.of(
                              "state",
                              State.LEADING,
                              "leader",
                              "me",
                              "token",
                              election.token().orElseThrow())));
            });
  }

  @Test
  void campaigningWhileEtcdDoesNotAnswerIsDown() {
    this.contextRunner
        .withPropertyValues("conch.etcd.endpoints=http://127.0.0.1:1", "conch.etcd.timeout=500ms")
        .run(
            context -> {
              Election election = context.getBean(Election.class);
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(() -> election.state() == State.CAMPAIGNING);

              Health health = context.getBean(ConchHealthIndicator.class).health();

              assertThat(health.getStatus()).isEqualTo(Status.DOWN);
              assertThat(health.getDetails().get("error").toString())
                  .startsWith("etcd unavailable");
            });
  }
}
