package dev.conch.spring.boot.autoconfigure.observation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.spring.leaderonly.LeaderOnlyObservations;
import dev.conch.spring.support.ConchObservations;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * conch's observations are wired by their auto-configuration from the registry Boot's observation
 * auto-configuration makes, and cost nothing without one or with conch off.
 */
@Timeout(60)
class ConchObservationAutoConfigurationTest {

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(ConchObservationAutoConfiguration.class));

  @Test
  void withBootsRegistryBothObservationsAreMade() {
    this.contextRunner
        .withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class))
        .run(
            context ->
                assertThat(context)
                    .hasSingleBean(ConchObservations.class)
                    .hasSingleBean(LeaderOnlyObservations.class));
  }

  @Test
  void withoutARegistryThereAreNone() {
    this.contextRunner.run(
        context ->
            assertThat(context)
                .doesNotHaveBean(ConchObservations.class)
                .doesNotHaveBean(LeaderOnlyObservations.class));
  }

  @Test
  void withConchOffThereAreNone() {
    this.contextRunner
        .withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class))
        .withPropertyValues("conch.enabled=false")
        .run(
            context ->
                assertThat(context)
                    .doesNotHaveBean(ConchObservations.class)
                    .doesNotHaveBean(LeaderOnlyObservations.class));
  }
}
