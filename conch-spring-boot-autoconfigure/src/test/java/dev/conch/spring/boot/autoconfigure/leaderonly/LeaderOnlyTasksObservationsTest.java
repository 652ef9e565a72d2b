package dev.conch.spring.boot.autoconfigure.leaderonly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.local.LocalOffices;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.boot.autoconfigure.observation.ConchObservationAutoConfiguration;
import dev.conch.spring.leaderonly.LeaderOnlyTasks;
import io.micrometer.observation.Observation;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The {@code conch.leaderonly} observation of a {@link LeaderOnlyTasks} task, with an {@code
 * ObservationRegistry}: the keys of a {@code @LeaderOnly} method's, the task's name in place of the
 * method, current while the task runs; a skipped task is observed with the outcome {@code SKIPPED}.
 */
@Timeout(60)
class LeaderOnlyTasksObservationsTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private final LocalOffices offices = new LocalOffices();

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ConchObservationAutoConfiguration.class,
                  ConchAutoConfiguration.class,
                  LeaderOnlyAutoConfiguration.class))
          .withPropertyValues("conch.standalone=true", "spring.application.name=app")
          .withBean(LocalOffices.class, () -> this.offices)
          .withBean(TestObservationRegistry.class, TestObservationRegistry::create);

  @Test
  void taskThatRunsIsObservedUnderItsNameAndIsCurrentWhileItRuns() {
    this.contextRunner.run(
        context -> {
          TestObservationRegistry registry = context.getBean(TestObservationRegistry.class);
          Election election = context.getBean(Election.class);
          assertThat(election.awaitLeadership(WAIT)).isTrue();
          long token = election.token().orElseThrow();

          Optional<String> current =
              context
                  .getBean(LeaderOnlyTasks.class)
                  .call(
                      "app",
                      "nightly-export",
                      () -> {
                        Observation observation = registry.getCurrentObservation();
                        return (observation != null)
                            ? observation.getContextView().getName()
                            : null;
                      });

          assertThat(current).contains("conch.leaderonly");
          TestObservationRegistryAssert.assertThat(registry)
              .hasObservationWithNameEqualTo("conch.leaderonly")
              .that()
              .hasContextualNameEqualTo("leaderonly nightly-export")
              .hasLowCardinalityKeyValue("code.namespace", "none")
              .hasLowCardinalityKeyValue("code.function", "nightly-export")
              .hasLowCardinalityKeyValue("conch.office", "app")
              .hasLowCardinalityKeyValue("outcome", "SUCCESS")
              .hasLowCardinalityKeyValue("exception", "none")
              .hasHighCardinalityKeyValue("conch.token", Long.toString(token))
              .hasBeenStopped();
        });
  }

  @Test
  void taskThatIsSkippedIsObservedWithTheOutcomeSkipped() throws Exception {
    try (Election other =
        this.offices.election(ElectionOptions.builder("app").candidateId("other").build())) {
      other.start();
      assertThat(other.awaitLeadership(WAIT)).isTrue();
      this.contextRunner.run(
          context -> {
            TestObservationRegistry registry = context.getBean(TestObservationRegistry.class);
            await().atMost(WAIT).until(() -> this.offices.leader("app").isPresent());

            assertThat(
                    context.getBean(LeaderOnlyTasks.class).run("app", "nightly-export", () -> {}))
                .isFalse();

            TestObservationRegistryAssert.assertThat(registry)
                .hasObservationWithNameEqualTo("conch.leaderonly")
                .that()
                .hasLowCardinalityKeyValue("code.namespace", "none")
                .hasLowCardinalityKeyValue("code.function", "nightly-export")
                .hasLowCardinalityKeyValue("conch.office", "app")
                .hasLowCardinalityKeyValue("outcome", "SKIPPED")
                .hasHighCardinalityKeyValue("conch.token", "none")
                .hasBeenStopped();
          });
    }
  }
}
