package dev.conch.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.InvalidArgumentException;
import dev.conch.local.LocalOffices;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.ApplicationAvailabilityBean;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code conch.health.readiness-leader=true}: readiness is the application's and leadership,
 * published as Boot's availability change events into Boot's own availability bean.
 */
@Timeout(60)
class LeaderReadinessTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

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
        .run(context -> assertThat(context).doesNotHaveBean(LeaderReadiness.class));
  }

  @Test
  void bootsOwnAvailabilityBeanRecordsReadiness() {
    this.contextRunner
        .withPropertyValues("conch.standalone=true", "conch.health.readiness-leader=true")
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
              assertThat(context.getBean(Election.class).awaitLeadership(WAIT)).isTrue();
              assertThat(readiness(context)).isEqualTo(ReadinessState.REFUSING_TRAFFIC);

              AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);

              assertThat(readiness(context)).isEqualTo(ReadinessState.ACCEPTING_TRAFFIC);
            });
  }

  @Test
  void leaderThatRefusesTrafficItselfStaysRefusing() {
    this.contextRunner
        .withPropertyValues("conch.standalone=true", "conch.health.readiness-leader=true")
        .run(
            context -> {
              AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
              assertThat(context.getBean(Election.class).awaitLeadership(WAIT)).isTrue();
              await()
                  .atMost(WAIT)
                  .until(() -> readiness(context) == ReadinessState.ACCEPTING_TRAFFIC);

              AvailabilityChangeEvent.publish(context, ReadinessState.REFUSING_TRAFFIC);

              assertThat(readiness(context)).isEqualTo(ReadinessState.REFUSING_TRAFFIC);
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

              await()
                  .atMost(WAIT)
                  .until(() -> readiness(context) == ReadinessState.REFUSING_TRAFFIC);
              assertThat(
                      context
                          .getBean(ApplicationAvailability.class)
                          .getLastChangeEvent(ReadinessState.class)
                          .getSource())
                  .isInstanceOf(LeaderReadiness.class);
            });
  }

  @Test
  void stoppedContextRefusesTrafficAndIsReadyAgainOnceItLeadsAgain() {
    this.contextRunner
        .withPropertyValues("conch.standalone=true", "conch.health.readiness-leader=true")
        .run(
            context -> {
              AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
              await()
                  .atMost(WAIT)
                  .until(() -> readiness(context) == ReadinessState.ACCEPTING_TRAFFIC);

              context.stop();
              assertThat(readiness(context)).isEqualTo(ReadinessState.REFUSING_TRAFFIC);

              context.start();
              await()
                  .atMost(WAIT)
                  .until(() -> readiness(context) == ReadinessState.ACCEPTING_TRAFFIC);
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
                      ConchTestSupport.analyze(
                              context, new InvalidConchConfigurationFailureAnalyzer())
                          .getDescription())
                  .isEqualTo("Invalid value 'true' for 'conch.health.readiness-leader'.");
            });
  }

  @Test
  void readinessLeaderOfAnOfficeThisInstanceDoesNotCampaignForIsRefused() {
    LocalOffices offices = new LocalOffices();
    this.contextRunner
        .withPropertyValues("conch.standalone=true", "conch.health.readiness-leader=true")
        .withBean(
            "batchElection",
            Election.class,
            () -> offices.election(ElectionOptions.forOffice("batch")))
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(
                      ConchTestSupport.analyze(
                              context, new InvalidConchConfigurationFailureAnalyzer())
                          .getAction())
                  .contains("office 'billing' has no election")
                  .contains("[batch]");
            });
  }

  private static ReadinessState readiness(AssertableApplicationContext context) {
    return context.getBean(ApplicationAvailability.class).getReadinessState();
  }
}
