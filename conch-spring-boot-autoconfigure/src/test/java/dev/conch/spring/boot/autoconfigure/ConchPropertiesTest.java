package dev.conch.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.ElectionOptions;
import dev.conch.etcd.SessionOptions;
import dev.conch.etcd.TimingBudget;
import dev.conch.process.ExternalCommandRunner;
import dev.conch.spring.health.CandidacyPauses;
import dev.conch.spring.health.HealthGatedCandidacy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.mock.env.MockEnvironment;

/** The defaults of {@link ConchProperties} are the core's own. */
@Timeout(60)
class ConchPropertiesTest {

  private final ConchProperties properties = new ConchProperties();

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(ConchAutoConfiguration.class))
          .withPropertyValues("conch.standalone=true", "conch.office=billing");

  @Test
  void ttlDefaultIsTheSessionDefault() {
    assertThat(this.properties.getTtl()).isNull();
    assertThat(
            ConchAutoConfiguration.EtcdConfiguration.sessionOptions(
                    this.properties, new StandardEnvironment())
                .ttl())
        .isEqualTo(SessionOptions.DEFAULT_TTL);
  }

  @Test
  void ttlDefaultWithARunnerIsTheCommandLinesSoThatARaftLeaderChangeIsRiddenOut() {
    StandardEnvironment environment = new StandardEnvironment();
    TestPropertyValues.of("conch.runner.command=sleep,600").applyTo(environment);

    Duration ttl =
        ConchAutoConfiguration.EtcdConfiguration.sessionOptions(this.properties, environment).ttl();

    assertThat(ttl).isEqualTo(ExternalCommandRunner.DEFAULT_TTL);
    SessionOptions session = SessionOptions.defaults().withTtl(ttl);
    ElectionOptions runnerElection =
        ElectionOptions.builder("jobs")
            .stopTimeout(
                ExternalCommandRunner.DEFAULT_KILL_AFTER.plus(ExternalCommandRunner.STOP_SLACK))
            .build();
    assertThat(
            TimingBudget.ofRunner(
                    session,
                    runnerElection,
                    ExternalCommandRunner.DEFAULT_KILL_AFTER,
                    ExternalCommandRunner.DEFAULT_HOOK_TIMEOUT,
                    false)
                .ridesOutRaftLeaderChange())
        .isTrue();
  }

  @Test
  void aTtlSetIsKeptWithARunnerToo() {
    StandardEnvironment environment = new StandardEnvironment();
    TestPropertyValues.of("conch.runner.command=sleep,600").applyTo(environment);
    this.properties.setTtl(Duration.ofSeconds(10));

    assertThat(
            ConchAutoConfiguration.EtcdConfiguration.sessionOptions(this.properties, environment)
                .ttl())
        .isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void renewIntervalDefaultIsLeftToTheSessionAsAThirdOfTheTtl() {
    assertThat(this.properties.getRenewInterval()).isNull();
    assertThat(
            ConchAutoConfiguration.EtcdConfiguration.sessionOptions(
                this.properties, new StandardEnvironment()))
        .isEqualTo(SessionOptions.defaults());
  }

  @Test
  void healthDefaultsRequireNothingQuarantineTenSecondsAndCheckEverySecondWithinFive() {
    ConchProperties.Health health = this.properties.getHealth();
    assertThat(health.getRequire()).isEmpty();
    assertThat(health.getQuarantine()).isNull();
    assertThat(health.isReadinessLeader()).isFalse();
    assertThat(health.getInterval())
        .isEqualTo(HealthGatedCandidacy.DEFAULT_INTERVAL)
        .isEqualTo(Duration.ofSeconds(1));
    assertThat(health.getTimeout())
        .isEqualTo(HealthGatedCandidacy.DEFAULT_TIMEOUT)
        .isEqualTo(Duration.ofSeconds(5));
    assertThat(HealthRequirements.of(this.properties, offices()).requirements())
        .singleElement()
        .isEqualTo(
            new CandidacyPauses.Requirement(
                List.of(),
                CandidacyPauses.DEFAULT_QUARANTINE,
                "conch.health.require",
                "conch.health.quarantine"));
    assertThat(CandidacyPauses.DEFAULT_QUARANTINE).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void deprecatedKeysStillBindAndNameThemselves() {
    ConchProperties bound =
        bind(Map.of("conch.require-health", "db,readiness", "conch.quarantine", "3s"));

    assertThat(HealthRequirements.of(bound, offices()).requirement("billing"))
        .hasValue(
            new CandidacyPauses.Requirement(
                List.of("db", "readiness"),
                Duration.ofSeconds(3),
                "conch.require-health",
                "conch.quarantine"));
  }

  @Test
  void newKeysWinOverTheDeprecatedOnes() {
    ConchProperties bound =
        bind(
            Map.of(
                "conch.require-health", "db",
                "conch.quarantine", "3s",
                "conch.health.require", "readiness",
                "conch.health.quarantine", "4s"));

    assertThat(HealthRequirements.of(bound, offices()).requirement("billing"))
        .hasValue(
            new CandidacyPauses.Requirement(
                List.of("readiness"),
                Duration.ofSeconds(4),
                "conch.health.require",
                "conch.health.quarantine"));
  }

  @Test
  void healthIntervalTimeoutAndReadinessLeaderBind() {
    this.contextRunner
        .withPropertyValues(
            "conch.health.interval=250ms",
            "conch.health.timeout=2s",
            "conch.health.readiness-leader=true")
        .run(
            context -> {
              ConchProperties.Health health = context.getBean(ConchProperties.class).getHealth();
              assertThat(health.getInterval()).isEqualTo(Duration.ofMillis(250));
              assertThat(health.getTimeout()).isEqualTo(Duration.ofSeconds(2));
              assertThat(health.isReadinessLeader()).isTrue();
            });
  }

  @Test
  void healthIntervalOrTimeoutOfZeroOrLessIsRefusedAsTyped() {
    refused("conch.health.interval", "0ms", "Accepted: a duration of more than zero, e.g. 1s.");
    refused("conch.health.timeout", "-1s", "Accepted: a duration of more than zero, e.g. 5s.");
    refused("conch.health.quarantine", "-2s", "Accepted: a duration of zero or more, e.g. 10s.");
  }

  @Test
  void healthIntervalThatIsNoDurationFailsBindingAndNamesTheProperty() {
    this.contextRunner
        .withPropertyValues("conch.health.interval=soon")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(context.getStartupFailure())
                  .hasStackTraceContaining("conch.health.interval")
                  .rootCause()
                  .hasMessageContaining("'soon' is not a valid duration");
            });
  }

  private void refused(String property, String value, String reason) {
    this.contextRunner
        .withPropertyValues(property + "=" + value)
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
                  .isInstanceOfSatisfying(
                      InvalidConfigurationPropertyValueException.class,
                      invalid -> {
                        assertThat(invalid.getName()).isEqualTo(property);
                        assertThat(invalid.getValue()).isEqualTo(value);
                        assertThat(invalid.getReason()).isEqualTo(reason);
                      });
            });
  }

  private static ConchProperties bind(Map<String, String> properties) {
    return new Binder(new MapConfigurationPropertySource(properties))
        .bind("conch", ConchProperties.class)
        .get();
  }

  @Test
  void officeRequirementReplacesTheDefaultAndNamesItsOwnProperty() {
    this.properties.getHealth().setRequire(List.of("db"));
    ConchProperties.Office orders = new ConchProperties.Office();
    orders.setRequireHealth(List.of("readiness"));
    orders.setQuarantine(Duration.ofSeconds(3));
    this.properties.getOffices().put("orders", orders);
    this.properties.getOffices().put("reports", new ConchProperties.Office());
    ConchProperties.Office audit = new ConchProperties.Office();
    audit.setRequireHealth(List.of());
    this.properties.getOffices().put("audit", audit);
    CandidacyPauses pauses =
        HealthRequirements.of(
            this.properties,
            ConfiguredOffices.of(
                new MockEnvironment()
                    .withProperty("conch.offices.orders.stop-timeout", "1s")
                    .withProperty("conch.offices.reports.stop-timeout", "1s")
                    .withProperty("conch.offices.audit.stop-timeout", "1s")));
    assertThat(pauses.requirement("orders"))
        .hasValue(
            new CandidacyPauses.Requirement(
                List.of("readiness"),
                Duration.ofSeconds(3),
                "conch.offices.orders.require-health",
                "conch.offices.orders.quarantine"));
    assertThat(pauses.requirement("reports"))
        .hasValue(
            new CandidacyPauses.Requirement(
                List.of("db"),
                CandidacyPauses.DEFAULT_QUARANTINE,
                "conch.health.require",
                "conch.health.quarantine"));
    assertThat(pauses.requirement("audit")).isEmpty();
    assertThat(pauses.requirement("onlyNamedByAHook"))
        .hasValueSatisfying(
            requirement -> assertThat(requirement.indicators()).containsExactly("db"));
  }

  @Test
  void etcdDefaultsAreTheSessionDefaults() {
    ConchProperties.Etcd etcd = this.properties.getEtcd();
    assertThat(etcd.getPrefix()).isEqualTo(SessionOptions.DEFAULT_PREFIX);
    assertThat(etcd.getTimeout()).isEqualTo(SessionOptions.DEFAULT_TIMEOUT);
    assertThat(etcd.getEndpoints()).containsExactly("http://127.0.0.1:2379");
    assertThat(etcd.getUsername()).isNull();
    assertThat(etcd.getPassword()).isNull();
    assertThat(etcd.getSsl().getBundle()).isNull();
  }

  @Test
  void electionDefaultsAreTheElectionDefaults() {
    assertThat(this.properties.getHookTimeout())
        .isEqualTo(ElectionOptions.DEFAULT_HOOK_TIMEOUT)
        .isEqualTo(Duration.ofSeconds(30));
    assertThat(this.properties.getStopTimeout()).isEqualTo(ElectionOptions.DEFAULT_STOP_TIMEOUT);
    assertThat(this.properties.getSafetyMargin()).isEqualTo(ElectionOptions.DEFAULT_SAFETY_MARGIN);
    assertThat(this.properties.getEventBuffer()).isEqualTo(ElectionOptions.DEFAULT_EVENT_BUFFER);
    ElectionOptions defaults = ElectionOptions.forOffice("billing");
    assertThat(this.properties.getRetry().getInitial()).isEqualTo(defaults.retryInitial());
    assertThat(this.properties.getRetry().getMax()).isEqualTo(defaults.retryMax());
  }

  @Test
  void defaultPropertiesGiveTheDefaultElectionOptions() {
    ElectionFactory factory =
        new ElectionFactory(
            this.properties, offices(), options -> null, null, new CandidacyPauses(Map.of(), null));

    assertThat(factory.options("billing")).isEqualTo(ElectionOptions.forOffice("billing"));
  }

  @Test
  void instanceIsEnabledNotStandaloneAndHasNoOfficeOfItsOwnByDefault() {
    assertThat(this.properties.isEnabled()).isTrue();
    assertThat(this.properties.isStandalone()).isFalse();
    assertThat(this.properties.getOffice()).isNull();
    assertThat(this.properties.getCandidate().getId()).isNull();
    assertThat(this.properties.getOffices()).isEmpty();
  }

  @Test
  void ttlWithoutUnitIsInSeconds() {
    this.contextRunner
        .withPropertyValues("conch.ttl=15")
        .run(
            context ->
                assertThat(context.getBean(ConchProperties.class).getTtl())
                    .isEqualTo(Duration.ofSeconds(15)));
  }

  @Test
  void officeOverridesReplaceOnlyWhatTheySet() {
    this.contextRunner
        .withPropertyValues(
            "conch.hook-timeout=20s",
            "conch.stop-timeout=2s",
            "conch.offices.billing.hook-timeout=5s",
            "conch.candidate.id=node-1")
        .run(
            context -> {
              ElectionOptions options = context.getBean(ElectionFactory.class).options("billing");
              assertThat(options.hookTimeout()).isEqualTo(Duration.ofSeconds(5));
              assertThat(options.stopTimeout()).isEqualTo(Duration.ofSeconds(2));
              assertThat(options.candidateId()).isEqualTo("node-1");
              ElectionOptions other = context.getBean(ElectionFactory.class).options("reports");
              assertThat(other.hookTimeout()).isEqualTo(Duration.ofSeconds(20));
            });
  }

  private static ConfiguredOffices offices() {
    return ConfiguredOffices.of(new MockEnvironment());
  }
}
