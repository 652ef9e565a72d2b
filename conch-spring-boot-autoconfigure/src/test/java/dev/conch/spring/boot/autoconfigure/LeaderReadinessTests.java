package dev.conch.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.Election;
import dev.conch.InvalidArgumentException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.ApplicationAvailabilityBean;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@code conch.health.readiness-leader=true}: readiness is the application's and leadership. */
class LeaderReadinessAvailabilityTests {

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ConchAutoConfiguration.class, ApplicationAvailabilityAutoConfiguration.class))
          .withPropertyValues("conch.office=billing");

  @Test
  void readinessIsTheApplicationsOwnByDefault() {
    this.contextRunner
        .withPropertyValues("conch.standalone=true")
        .run(
            context ->
                assertThat(context.getBean(ApplicationAvailability.class).getClass())
                    .isEqualTo(ApplicationAvailabilityBean.class));
  }

  @Test
  void leaderThatAcceptsTrafficIsReady() {
    this.contextRunner
        .withPropertyValues("conch.standalone=true", "conch.health.readiness-leader=true")
        .run(
            context -> {
              assertThat(context.getBean(Election.class).awaitLeadership(Duration.ofSeconds(10)))
                  .isTrue();
              ApplicationAvailability availability = context.getBean(ApplicationAvailability.class);
              assertThat(availability.getReadinessState())
                  .isEqualTo(ReadinessState.REFUSING_TRAFFIC);

              AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);

              assertThat(availability.getReadinessState())
                  .isEqualTo(ReadinessState.ACCEPTING_TRAFFIC);
            });
  }

  @Test
  void instanceThatDoesNotLeadRefusesTrafficThoughTheApplicationAcceptsIt() {
    this.contextRunner
        .withPropertyValues(
            "conch.health.readiness-leader=true",
            "conch.etcd.endpoints=http://127.0.0.1:1",
            "conch.etcd.timeout=500ms")
        .run(
            context -> {
              AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);

              assertThat(context.getBean(ApplicationAvailability.class).getReadinessState())
                  .isEqualTo(ReadinessState.REFUSING_TRAFFIC);
            });
  }

  @Test
  void readinessLeaderWithoutADefaultOfficeIsRefused() {
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                ConchAutoConfiguration.class, ApplicationAvailabilityAutoConfiguration.class))
        .withPropertyValues(
            "conch.standalone=true",
            "conch.offices.billing.hook-timeout=1s",
            "conch.health.readiness-leader=true")
        .run(
            context -> {
              assertThat(context).getFailure().isInstanceOf(InvalidArgumentException.class);
              assertThat(
                      new InvalidConchConfigurationFailureAnalyzer()
                          .analyze(context.getStartupFailure())
                          .getDescription())
                  .isEqualTo("Invalid value 'true' for 'conch.health.readiness-leader'.");
            });
  }
}
