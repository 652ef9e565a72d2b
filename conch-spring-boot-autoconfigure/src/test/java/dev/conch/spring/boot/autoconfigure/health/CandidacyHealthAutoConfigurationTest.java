package dev.conch.spring.boot.autoconfigure.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.State;
import dev.conch.local.LocalOffices;
import dev.conch.spring.Elections;
import dev.conch.spring.boot.actuate.endpoint.ConchEndpoint;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.health.CandidacyEvent;
import dev.conch.spring.health.CandidacyPauses;
import dev.conch.spring.health.HealthGatedCandidacy;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.NestedExceptionUtils;

/**
 * Health-gated candidacy in memory (the state machine, not etcd): a group gates as its members do,
 * a check that hangs counts as not UP without holding up any election, and without Spring Boot's
 * health support a requirement fails startup.
 */
@Timeout(60)
class CandidacyHealthAutoConfigurationTest {

  private static final Duration WAIT = Duration.ofSeconds(20);

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ConchAutoConfiguration.class,
                  HealthContributorRegistryAutoConfiguration.class,
                  HealthEndpointAutoConfiguration.class,
                  CandidacyHealthAutoConfiguration.class))
          .withPropertyValues("conch.standalone=true", "conch.office=billing");

  @Test
  void groupKeepsTheCandidacyOutWhileAMemberIsDown() {
    this.contextRunner
        .withBean("dbHealthIndicator", ToggledHealthIndicator.class)
        .withUserConfiguration(EndpointConfiguration.class)
        .withPropertyValues(
            "management.endpoint.health.group.custom.include=db",
            "conch.health.require=custom",
            "conch.health.quarantine=0s")
        .run(
            context -> {
              Election billing = leadThenTurnDbDown(context);
              assertThat(context.getBean(CandidacyPauses.class).pause("billing"))
                  .hasValueSatisfying(
                      pause -> {
                        assertThat(pause.indicator()).isEqualTo("custom");
                        assertThat(pause.reason()).isEqualTo("custom is DOWN (db is DOWN)");
                      });
              assertThat(context.getBean(ConchEndpoint.class).conch().offices())
                  .singleElement()
                  .satisfies(
                      office ->
                          assertThat(office.candidacy())
                              .isEqualTo(
                                  new ConchEndpoint.CandidacyDescriptor(
                                      true, "custom", "custom is DOWN (db is DOWN)", null)));
              context.getBean(ToggledHealthIndicator.class).up();
              assertThat(billing.awaitLeadership(WAIT)).isTrue();
              assertThat(context.getBean(ConchEndpoint.class).conch().offices())
                  .singleElement()
                  .satisfies(office -> assertThat(office.candidacy()).isNull());
            });
  }

  @Test
  void instanceThatStartsUnhealthyNeverCampaigns() {
    this.contextRunner
        .withBean(
            "dbHealthIndicator",
            ToggledHealthIndicator.class,
            () -> {
              ToggledHealthIndicator indicator = new ToggledHealthIndicator();
              indicator.down();
              return indicator;
            })
        .withBean(CandidacyRecorder.class)
        .withPropertyValues("conch.health.require=db")
        .run(
            context -> {
              Election billing = context.getBean(Election.class);
              await()
                  .during(Duration.ofSeconds(2))
                  .atMost(WAIT)
                  .until(() -> billing.state() == State.DENIED);
              // A term won before the first check would have been resigned: a loss.
              assertThat(context.getBean(CandidacyRecorder.class).losses).isEmpty();
            });
  }

  @Test
  void checkThatHangsCountsAsNotUpAndHoldsUpNoOtherOffice() {
    CountDownLatch never = new CountDownLatch(1);
    this.contextRunner
        .withBean(
            "slowHealthIndicator",
            HealthIndicator.class,
            () ->
                () -> {
                  try {
                    never.await();
                  } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                  }
                  return Health.up().build();
                })
        .withPropertyValues(
            "conch.offices.billing.require-health=slow",
            "conch.offices.orders.hook-timeout=30s",
            "conch.health.timeout=1500ms")
        .run(
            context -> {
              Elections elections = context.getBean(Elections.class);
              assertThat(elections.get("orders").awaitLeadership(WAIT)).isTrue();
              Election billing = elections.get("billing");
              await().atMost(WAIT).until(() -> billing.state() == State.DENIED);
              await()
                  .atMost(WAIT)
                  .untilAsserted(
                      () ->
                          assertThat(context.getBean(CandidacyPauses.class).pause("billing"))
                              .hasValueSatisfying(
                                  pause ->
                                      assertThat(pause.reason())
                                          .isEqualTo(
                                              "the health check of slow did not answer within"
                                                  + " 1500ms")));
              assertThat(billing.isLeader()).isFalse();
              assertThat(context.getBean(HealthGatedCandidacy.class).isRunning()).isTrue();
            });
  }

  @Test
  void checkThatThrowsAnErrorCountsAsNotUpAndCheckingGoesOn() {
    AtomicBoolean failing = new AtomicBoolean();
    this.contextRunner
        .withBean(
            "brokenHealthIndicator",
            HealthIndicator.class,
            () ->
                () -> {
                  if (failing.get()) {
                    throw new StackOverflowError("deep in the indicator");
                  }
                  return Health.up().build();
                })
        .withPropertyValues("conch.health.require=broken", "conch.health.quarantine=0s")
        .run(
            context -> {
              Election billing = context.getBean(Election.class);
              assertThat(billing.awaitLeadership(WAIT)).isTrue();
              failing.set(true);
              await().atMost(WAIT).until(() -> billing.state() == State.DENIED);
              assertThat(context.getBean(CandidacyPauses.class).pause("billing"))
                  .hasValueSatisfying(
                      pause ->
                          assertThat(pause.reason())
                              .isEqualTo(
                                  "the health check of broken failed:"
                                      + " java.lang.StackOverflowError: deep in the indicator"));
              failing.set(false);
              assertThat(billing.awaitLeadership(WAIT)).isTrue();
            });
  }

  @Test
  void listenerThatThrowsAnErrorDoesNotEndTheChecking() {
    this.contextRunner
        .withBean("dbHealthIndicator", ToggledHealthIndicator.class)
        .withBean(FailingListener.class)
        .withPropertyValues("conch.health.require=db", "conch.health.quarantine=0s")
        .run(
            context -> {
              Election billing = leadThenTurnDbDown(context);
              assertThat(context.getBean(FailingListener.class).calls).hasPositiveValue();
              context.getBean(ToggledHealthIndicator.class).up();
              // Only a check that still runs resumes the candidacy.
              assertThat(billing.awaitLeadership(WAIT)).isTrue();
            });
  }

  /**
   * A listener of the candidacy's events that fails with an Error, as a test's assertion does. An
   * {@code ApplicationListener}, not an {@code @EventListener} method: Spring wraps what such a
   * method throws, other than a RuntimeException, in an UndeclaredThrowableException.
   */
  static class FailingListener implements ApplicationListener<CandidacyEvent> {

    final AtomicInteger calls = new AtomicInteger();

    @Override
    public void onApplicationEvent(CandidacyEvent event) {
      this.calls.incrementAndGet();
      throw new AssertionError("a listener's assertion failed");
    }
  }

  @Test
  void withoutARequirementTheGateCostsNothing() {
    this.contextRunner
        .withBean("dbHealthIndicator", ToggledHealthIndicator.class)
        .withPropertyValues("conch.health.interval=100ms", "conch.health.quarantine=0s")
        // No bean, so none of its threads (conch-health, conch-health-check-<n>).
        .run(
            context -> {
              assertThat(context).hasNotFailed().doesNotHaveBean(HealthGatedCandidacy.class);
              assertThat(healthThreads()).isEmpty();
            });
    this.contextRunner
        .withBean("dbHealthIndicator", ToggledHealthIndicator.class)
        .withPropertyValues("conch.offices.billing.require-health[0]=db")
        .run(context -> assertThat(context).hasSingleBean(HealthGatedCandidacy.class));
    this.contextRunner
        .withBean("dbHealthIndicator", ToggledHealthIndicator.class)
        .withPropertyValues("conch.health.require[0]=db")
        .run(context -> assertThat(context).hasSingleBean(HealthGatedCandidacy.class));
  }

  @Test
  void anOfficeNamedWithDotsThatRequiresHealthGetsTheGate() {
    this.contextRunner
        .withBean("dbHealthIndicator", ToggledHealthIndicator.class)
        .withPropertyValues("conch.offices[order.sync].require-health=db")
        .run(
            context ->
                assertThat(context).hasNotFailed().hasSingleBean(HealthGatedCandidacy.class));
  }

  @Test
  void checksPollOnOneThreadOfTheirOwnThatStopsOnClose() {
    this.contextRunner
        .withBean("dbHealthIndicator", ToggledHealthIndicator.class)
        .withPropertyValues("conch.health.require=db", "conch.health.interval=50ms")
        .run(
            context -> {
              assertThat(context.getBean(Election.class).awaitLeadership(WAIT)).isTrue();
              await()
                  .atMost(WAIT)
                  .untilAsserted(() -> assertThat(pollThreads()).containsExactly("conch-health"));
            });
    await().atMost(WAIT).until(() -> healthThreads().isEmpty());
  }

  @Test
  void deprecatedKeysStillRequireAndQuarantine() {
    this.contextRunner
        .withBean("dbHealthIndicator", ToggledHealthIndicator.class)
        .withPropertyValues("conch.require-health=db", "conch.quarantine=0s")
        .run(
            context -> {
              assertThat(context.getBean(CandidacyPauses.class).requirement("billing"))
                  .hasValue(
                      new CandidacyPauses.Requirement(
                          java.util.List.of("db"),
                          Duration.ZERO,
                          "conch.require-health",
                          "conch.quarantine"));
              Election billing = leadThenTurnDbDown(context);
              context.getBean(ToggledHealthIndicator.class).up();
              assertThat(billing.awaitLeadership(WAIT)).isTrue();
            });
  }

  @Test
  void groupIsAnsweredAsTheHealthEndpointAnswersItWithTheGroupsOwnStatusOrder() {
    this.contextRunner
        .withBean("dbHealthIndicator", ToggledHealthIndicator.class)
        .withBean(
            "cacheHealthIndicator",
            HealthIndicator.class,
            () -> () -> Health.outOfService().build())
        .withPropertyValues(
            "management.endpoint.health.group.custom.include=db,cache",
            // OUT_OF_SERVICE counts as UP in this group (not by Boot's default order), as
            // /actuator/health/custom would say.
            "management.endpoint.health.group.custom.status.order=down,up,out_of_service",
            "conch.health.require=custom",
            "conch.health.quarantine=0s")
        .run(
            context -> {
              Election billing = leadThenTurnDbDown(context);
              assertThat(context.getBean(CandidacyPauses.class).pause("billing"))
                  .hasValueSatisfying(
                      pause ->
                          assertThat(pause.reason())
                              .isEqualTo("custom is DOWN (cache is OUT_OF_SERVICE, db is DOWN)"));
            });
  }

  @Test
  void readinessGroupWithConchsOwnMemberGatesOnlyOnTheOthers() {
    this.contextRunner
        .withConfiguration(AutoConfigurations.of(ConchHealthContributorAutoConfiguration.class))
        .withBean("dbHealthIndicator", ToggledHealthIndicator.class)
        .withPropertyValues(
            "management.endpoint.health.group.readiness.include=db",
            "conch.health.readiness-leader=true",
            "conch.health.require=readiness",
            "conch.health.quarantine=0s")
        .run(
            context -> {
              assertThat(
                      context
                          .getBean(HealthEndpointGroups.class)
                          .get("readiness")
                          .isMember("conchLeader"))
                  .isTrue();
              // conchLeader is OUT_OF_SERVICE until this instance leads: it must not count.
              Election billing = leadThenTurnDbDown(context);
              context.getBean(ToggledHealthIndicator.class).up();
              assertThat(billing.awaitLeadership(WAIT)).isTrue();
            });
  }

  @Test
  void pathIntoACompositeIsAnsweredForThatMemberOnly() {
    ToggledHealthIndicator primary = new ToggledHealthIndicator();
    ToggledHealthIndicator replica = new ToggledHealthIndicator();
    replica.down();
    this.contextRunner
        .withBean(
            "dbHealthContributor",
            CompositeHealthContributor.class,
            () ->
                CompositeHealthContributor.fromMap(
                    java.util.Map.of("primary", primary, "replica", replica)))
        .withPropertyValues("conch.health.require=db/primary", "conch.health.quarantine=0s")
        .run(
            context -> {
              Election billing = context.getBean(Election.class);
              // db as a whole is DOWN (its replica): only db/primary is required.
              assertThat(billing.awaitLeadership(WAIT)).isTrue();
              primary.down();
              await().atMost(WAIT).until(() -> billing.state() == State.DENIED);
              assertThat(context.getBean(CandidacyPauses.class).pause("billing"))
                  .hasValueSatisfying(
                      pause -> assertThat(pause.reason()).isEqualTo("db/primary is DOWN"));
            });
  }

  /** Waits for billing to lead, turns db DOWN, and waits until the candidacy is paused. */
  private static Election leadThenTurnDbDown(AssertableApplicationContext context)
      throws InterruptedException {
    Election billing = context.getBean(Election.class);
    assertThat(billing.awaitLeadership(WAIT)).isTrue();
    context.getBean(ToggledHealthIndicator.class).down();
    await().atMost(WAIT).until(() -> billing.state() == State.DENIED);
    return billing;
  }

  private static java.util.List<String> healthThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .map(Thread::getName)
        .filter(name -> name.startsWith("conch-health"))
        .toList();
  }

  private static java.util.List<String> pollThreads() {
    return healthThreads().stream()
        .filter(name -> !name.startsWith("conch-health-check-"))
        .toList();
  }

  @Test
  void applicationsOwnElectionHasNoGateAndIsLeftAlone() {
    this.contextRunner
        .withBean("dbHealthIndicator", ToggledHealthIndicator.class)
        .withBean(
            Election.class, () -> new LocalOffices().election(ElectionOptions.forOffice("billing")))
        .withPropertyValues("conch.health.require=db")
        .run(
            context -> {
              Election billing = context.getBean(Election.class);
              assertThat(billing.awaitLeadership(WAIT)).isTrue();
              long token = billing.token().orElseThrow();
              context.getBean(ToggledHealthIndicator.class).down();
              await()
                  .during(Duration.ofSeconds(3))
                  .atMost(WAIT)
                  .until(() -> billing.token().equals(OptionalLong.of(token)));
              assertThat(context.getBean(CandidacyPauses.class).pause("billing")).isEmpty();
            });
  }

  @Configuration(proxyBeanMethods = false)
  static class EndpointConfiguration {

    @Bean
    ConchEndpoint conchEndpoint(Elections elections, CandidacyPauses pauses) {
      return new ConchEndpoint(
          elections,
          office -> Optional.empty(),
          office -> Optional.empty(),
          office -> java.util.List.of(),
          pauses::pause,
          Optional::empty,
          (office, n) -> java.util.List.of());
    }
  }

  @Test
  void requirementWithoutHealthSupportFailsStartup() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(ConchAutoConfiguration.class))
        .withPropertyValues(
            "conch.standalone=true", "conch.office=billing", "conch.health.require=db")
        .run(CandidacyHealthAutoConfigurationTest::failsForWantOfHealthSupport);
  }

  @Test
  void requirementWithTheHealthModuleButWithoutTheActuatorFailsStartup() {
    // HealthEndpoint, which answers for the required names, needs spring-boot-actuator.
    this.contextRunner
        .withClassLoader(new FilteredClassLoader(EndpointId.class))
        .withBean("dbHealthIndicator", ToggledHealthIndicator.class)
        .withPropertyValues("conch.health.require=db")
        .run(CandidacyHealthAutoConfigurationTest::failsForWantOfHealthSupport);
  }

  private static void failsForWantOfHealthSupport(AssertableApplicationContext context) {
    assertThat(context).hasFailed();
    assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
        .hasMessage(
            "invalid conch.health.require 'db': no health contributor or group without Spring"
                + " Boot's health support: add spring-boot-starter-actuator (spring-boot-health and"
                + " spring-boot-actuator), or remove the property");
  }
}
