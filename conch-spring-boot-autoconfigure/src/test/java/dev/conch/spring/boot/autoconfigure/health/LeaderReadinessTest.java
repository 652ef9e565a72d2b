package dev.conch.spring.boot.autoconfigure.health;

import static dev.conch.spring.boot.autoconfigure.ConchTestSupport.freshOffice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.State;
import dev.conch.local.LocalOffices;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.boot.health.LeaderReadinessHealthIndicator;
import dev.conch.test.EtcdExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.health.actuate.endpoint.HealthDescriptor;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.AvailabilityProbesAutoConfiguration;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration;
import org.springframework.boot.health.autoconfigure.application.AvailabilityHealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code conch.health.readiness-leader=true}: the {@code readiness} group holds the {@code
 * conchLeader} indicator beside Boot's {@code readinessState}, against a real etcd member.
 */
@Timeout(90)
class LeaderReadinessTest {

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private static final Duration WAIT = Duration.ofSeconds(20);

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ConchAutoConfiguration.class,
                  ConchHealthContributorAutoConfiguration.class,
                  ApplicationAvailabilityAutoConfiguration.class,
                  EndpointAutoConfiguration.class,
                  HealthContributorRegistryAutoConfiguration.class,
                  HealthEndpointAutoConfiguration.class,
                  AvailabilityHealthContributorAutoConfiguration.class,
                  AvailabilityProbesAutoConfiguration.class))
          .withPropertyValues(
              "conch.ttl=30s", "conch.etcd.timeout=2s", "conch.health.readiness-leader=true");

  private ApplicationContextRunner instance(String office, String id) {
    return this.contextRunner.withPropertyValues(
        "conch.etcd.endpoints=" + etcd.cluster().endpoints(),
        "conch.office=" + office,
        "conch.candidate.id=" + id);
  }

  @Test
  void readinessIsTheApplicationsOwnByDefault() {
    this.contextRunner
        .withPropertyValues(
            "conch.standalone=true", "conch.office=billing", "conch.health.readiness-leader=false")
        .run(
            context -> {
              acceptTraffic(context);
              assertThat(context).doesNotHaveBean(LeaderReadinessHealthIndicator.class);
              assertThat(readiness(context).getStatus()).isEqualTo(Status.UP);
            });
  }

  @Test
  void followerIsOutOfServiceLeaderIsUpAndTheHandOverFlipsBoth() {
    String office = freshOffice("ready");
    instance(office, "a")
        .run(
            a -> {
              acceptTraffic(a);
              Election first = a.getBean(Election.class);
              assertThat(first.awaitLeadership(WAIT)).isTrue();
              assertThat(readiness(a).getStatus()).isEqualTo(Status.UP);
              instance(office, "b")
                  .run(
                      b -> {
                        acceptTraffic(b);
                        Election second = b.getBean(Election.class);
                        await().atMost(WAIT).until(() -> second.state() == State.FOLLOWING);

                        assertThat(readiness(b).getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
                        assertThat(readiness(a).getStatus()).isEqualTo(Status.UP);

                        first.transfer();

                        await().atMost(WAIT).until(second::isLeader);
                        assertThat(readiness(b).getStatus()).isEqualTo(Status.UP);
                        await().atMost(WAIT).until(() -> first.state() == State.FOLLOWING);
                        assertThat(readiness(a).getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
                      });
            });
  }

  @Test
  void leaderThatRefusesTrafficItselfIsNotReady() {
    String office = freshOffice("ready");
    instance(office, "a")
        .run(
            context -> {
              assertThat(context.getBean(Election.class).awaitLeadership(WAIT)).isTrue();
              AvailabilityChangeEvent.publish(context, ReadinessState.REFUSING_TRAFFIC);

              assertThat(readiness(context).getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
              assertThat(leader(context).getStatus()).isEqualTo(Status.UP);
            });
  }

  @Test
  void leaderIndicatorCanHaveAGroupOfItsOwn() {
    String office = freshOffice("ready");
    instance(office, "a")
        .withPropertyValues("management.endpoint.health.group.leader.include=conchLeader")
        .run(
            context -> {
              assertThat(context.getBean(Election.class).awaitLeadership(WAIT)).isTrue();

              HealthDescriptor group =
                  context.getBean(HealthEndpoint.class).healthForPath("leader");

              assertThat(group).isNotNull();
              assertThat(group.getStatus()).isEqualTo(Status.UP);
            });
  }

  @Test
  void applicationsOwnReadinessGroupGetsTheLeaderToo() {
    String office = freshOffice("ready");
    instance(office, "a")
        .withPropertyValues("management.endpoint.health.group.readiness.include=readinessState")
        .run(
            context -> {
              acceptTraffic(context);
              Election election = context.getBean(Election.class);
              assertThat(election.awaitLeadership(WAIT)).isTrue();
              assertThat(readiness(context).getStatus()).isEqualTo(Status.UP);

              election.resign();

              assertThat(readiness(context).getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
            });
  }

  @Test
  void readinessLeaderWithoutADefaultOfficeIsRefused() {
    this.contextRunner
        .withPropertyValues("conch.standalone=true", "conch.offices.billing.hook-timeout=1s")
        .run(
            context -> {
              assertThat(context)
                  .getFailure()
                  .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                  .hasMessageContaining("conch.health.readiness-leader")
                  .hasMessageContaining("set conch.office or spring.application.name");
            });
  }

  @Test
  void readinessLeaderOfAnOfficeThisInstanceDoesNotCampaignForIsRefused() {
    LocalOffices offices = new LocalOffices();
    this.contextRunner
        .withPropertyValues("conch.standalone=true", "conch.office=billing")
        .withBean(
            "batchElection",
            Election.class,
            () -> offices.election(ElectionOptions.forOffice("batch")))
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                    .hasMessageContaining("office 'billing' has no election")
                    .hasMessageContaining("[batch]"));
  }

  /** What SpringApplication declares once the application has started. */
  private static void acceptTraffic(AssertableApplicationContext context) {
    AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
  }

  private static HealthDescriptor readiness(AssertableApplicationContext context) {
    HealthDescriptor readiness = context.getBean(HealthEndpoint.class).healthForPath("readiness");
    assertThat(readiness).as("the readiness group").isNotNull();
    return readiness;
  }

  private static HealthDescriptor leader(AssertableApplicationContext context) {
    HealthDescriptor leader = context.getBean(HealthEndpoint.class).healthForPath("conchLeader");
    assertThat(leader).as("the conchLeader contributor").isNotNull();
    return leader;
  }
}
