package dev.conch.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.State;
import dev.conch.etcd.EtcdClients;
import dev.conch.etcd.EtcdSession;
import dev.conch.etcd.SessionOptions;
import dev.conch.local.LocalOffices;
import dev.conch.spring.Elections;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Which beans {@link ConchAutoConfiguration} contributes, and when it backs off. etcd is configured
 * at a port where nothing listens: none of this needs it.
 */
@ExtendWith(OutputCaptureExtension.class)
class ConchAutoConfigurationTest {

  private static final String NOWHERE = "http://127.0.0.1:1";

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(ConchAutoConfiguration.class))
          .withPropertyValues(
              "spring.application.name=app",
              "conch.etcd.endpoints=" + NOWHERE,
              "conch.etcd.timeout=500ms");

  @Test
  void autoConfiguresClientSessionAndAnElectionForTheApplicationName() {
    this.contextRunner.run(
        context -> {
          assertThat(context)
              .hasSingleBean(Client.class)
              .hasSingleBean(EtcdSession.class)
              .hasSingleBean(PropertiesEtcdConnectionDetails.class)
              .hasSingleBean(Election.class)
              .hasBean("conchElection.app")
              .doesNotHaveBean(LocalOffices.class);
          assertThat(context.getBean(Election.class).office()).isEqualTo("app");
          assertThat(context.getBean(Elections.class).offices()).containsExactly("app");
        });
  }

  @Test
  void conchOfficeWinsOverTheApplicationName() {
    this.contextRunner
        .withPropertyValues("conch.office=billing")
        .run(context -> assertThat(context.getBean(Election.class).office()).isEqualTo("billing"));
  }

  @Test
  void eachConfiguredOfficeGetsAnElectionBeanQualifiedByItsNameAndTheDefaultOneIsPrimary() {
    this.contextRunner
        .withPropertyValues(
            "conch.offices.billing.hook-timeout=5s", "conch.offices.reports.hook-timeout=6s")
        .withUserConfiguration(InjectsElections.class)
        .run(
            context -> {
              assertThat(context.getBeansOfType(Election.class))
                  .containsOnlyKeys(
                      "conchElection.app", "conchElection.billing", "conchElection.reports");
              InjectedElections injected = context.getBean(InjectedElections.class);
              assertThat(injected.primary().office()).isEqualTo("app");
              assertThat(injected.billing().office()).isEqualTo("billing");
              assertThat(context.getBean(Elections.class).offices())
                  .containsExactly("app", "billing", "reports");
            });
  }

  @Test
  void campaigningStartsWithTheContextAndEtcdOutOfReachIsNotFatal() {
    this.contextRunner.run(
        context -> {
          assertThat(context).hasNotFailed();
          Election election = context.getBean(Election.class);
          await().atMost(Duration.ofSeconds(10)).until(() -> election.state() == State.CAMPAIGNING);
          assertThat(election.isLeader()).isFalse();
        });
  }

  @Test
  void userClientBeanBacksOffAutoConfiguredClient() {
    this.contextRunner
        .withBean(
            "userClient",
            Client.class,
            () -> EtcdClients.builder(List.of(URI.create(NOWHERE)), Duration.ofSeconds(1)).build())
        .run(
            context -> {
              assertThat(context).hasSingleBean(Client.class).hasBean("userClient");
              assertThat(context.getBean(EtcdSession.class).client())
                  .isSameAs(context.getBean("userClient"));
            });
  }

  @Test
  void userSessionBeanBacksOffAutoConfiguredSession() {
    this.contextRunner
        .withUserConfiguration(UserSession.class)
        .run(
            context -> {
              assertThat(context).hasSingleBean(EtcdSession.class).hasBean("userSession");
              assertThat(context.getBean(EtcdSession.class).options().prefix()).isEqualTo("/mine/");
            });
  }

  @Test
  void userElectionBeanBacksOffElectionBeansAndIsCampaignedFor() {
    LocalOffices offices = new LocalOffices();
    this.contextRunner
        .withBean(
            "userElection",
            Election.class,
            () -> offices.election(ElectionOptions.forOffice("custom")))
        .run(
            context -> {
              assertThat(context).hasSingleBean(Election.class).hasBean("userElection");
              assertThat(context.getBean(Elections.class).offices()).containsExactly("custom");
              assertThat(context.getBean(Election.class).awaitLeadership(Duration.ofSeconds(10)))
                  .isTrue();
            });
  }

  @Test
  void userConnectionDetailsBeanBacksOffProperties() {
    EtcdConnectionDetails details = () -> List.of(URI.create("http://127.0.0.1:2"));
    this.contextRunner
        .withBean(EtcdConnectionDetails.class, () -> details)
        .run(
            context -> {
              assertThat(context)
                  .hasSingleBean(EtcdConnectionDetails.class)
                  .doesNotHaveBean(PropertiesEtcdConnectionDetails.class);
              assertThat(context.getBean(EtcdConnectionDetails.class)).isSameAs(details);
            });
  }

  @Test
  void clientBuilderCustomizersAreApplied() {
    AtomicInteger customized = new AtomicInteger();
    this.contextRunner
        .withBean(EtcdClientBuilderCustomizer.class, () -> builder -> customized.incrementAndGet())
        .run(
            context -> {
              assertThat(context).hasSingleBean(Client.class);
              assertThat(customized).hasValue(1);
            });
  }

  @Test
  void eachOfficesTimingBudgetIsLoggedOnceAtStartupWithoutWarnings(CapturedOutput output) {
    this.contextRunner
        .withPropertyValues("conch.offices.billing.stop-timeout=2s")
        .run(
            context -> {
              EtcdSession session = context.getBean(EtcdSession.class);
              // The first grant failed (nothing listens there): the reset of gRPC's back-off
              // that follows it on the same thread said nothing, then or in the retries after.
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(() -> !session.lastError().equals("no attempt yet"));
              await()
                  .during(Duration.ofSeconds(1))
                  .atMost(Duration.ofSeconds(3))
                  .until(() -> !output.toString().contains("cannot reset gRPC"));
              // Spring defaults: W = 10 s - 1.5 s, renewed every W / 4; billing: W = 7.5 s.
              assertThat(output)
                  .containsOnlyOnce(
                      "office app: ttl 10s asked for, leadership dropped 1s500ms before")
                  .contains(
                      "office app: ttl 10s asked for, leadership dropped 1s500ms before the lease")
                  .contains("renewed every 2s125ms (attempts up to 500ms)")
                  .contains("rides out etcd outages up to 5s875ms")
                  .contains("a lose hook still running at D-500ms is interrupted")
                  .containsOnlyOnce("office billing: ttl 10s asked for, leadership dropped 2s500ms")
                  .contains("renewed every 1s875ms")
                  .doesNotContain("cannot reset gRPC's reconnect back-off")
                  .doesNotContain("own etcd Client bean");
              assertThat(context.getBean(OfficeTimings.class).of("billing"))
                  .hasValueSatisfying(
                      budget ->
                          assertThat(budget.outageRiddenOut()).isEqualTo(Duration.ofMillis(5125)));
            });
  }

  @Test
  void customizerThatTurnsConchsCallSettingsBackOnIsSetBackWithAWarning(CapturedOutput output) {
    this.contextRunner
        .withBean(
            EtcdClientBuilderCustomizer.class,
            () -> builder -> builder.waitForReady(true).retryMaxAttempts(3).interceptors(List.of()))
        .run(
            context -> {
              Client client = context.getBean(Client.class);
              ByteSequence key = ByteSequence.from("/k", StandardCharsets.UTF_8);

              // Wait-for-ready would hold the call until the deadline, or forever without one:
              // set back, it fails at once with the reason of the failed connect.
              assertThatExceptionOfType(ExecutionException.class)
                  .isThrownBy(() -> client.getKVClient().get(key).get(5, TimeUnit.SECONDS))
                  .satisfies(
                      failure ->
                          assertThat(failure)
                              .hasStackTraceContaining("UNAVAILABLE")
                              .satisfies(
                                  e ->
                                      assertThat(e.toString() + e.getCause())
                                          .doesNotContain("DEADLINE_EXCEEDED")));
              assertThat(output)
                  .containsOnlyOnce("EtcdClientBuilderCustomizer")
                  .contains("changed settings conch relies on; set back: waitForReady(true)")
                  .contains("retryMaxAttempts(3)")
                  .contains("interceptors without conch's call deadline");
            });
  }

  @Test
  void customizerThatLeavesConchsCallSettingsAloneIsNotWarnedAbout(CapturedOutput output) {
    this.contextRunner
        .withBean(EtcdClientBuilderCustomizer.class, () -> builder -> builder.authority("etcd"))
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(output).doesNotContain("changed settings conch relies on");
            });
  }

  @Test
  void userClientBeanIsUsedAsItIsWithOneWarningThatNamesItAndTheRisk(CapturedOutput output) {
    this.contextRunner
        .withBean(
            "userClient",
            Client.class,
            () -> Client.builder().endpoints(URI.create(NOWHERE)).build())
        .run(
            context -> {
              assertThat(context.getBean(EtcdSession.class).client())
                  .isSameAs(context.getBean("userClient"));
              assertThat(output)
                  .containsOnlyOnce("own etcd Client bean 'userClient'")
                  .contains("wait-for-ready")
                  .contains("sent when it is back");
            });
  }

  @Test
  void autoConfigurationBacksOffWithoutJetcd() {
    this.contextRunner
        .withClassLoader(new FilteredClassLoader(Client.class))
        .run(
            context ->
                assertThat(context)
                    .doesNotHaveBean(ConchProperties.class)
                    .doesNotHaveBean(Elections.class)
                    .doesNotHaveBean(Election.class));
  }

  @Test
  void autoConfigurationBacksOffWhenDisabled() {
    this.contextRunner
        .withPropertyValues("conch.enabled=false")
        .run(
            context ->
                assertThat(context)
                    .doesNotHaveBean(Client.class)
                    .doesNotHaveBean(EtcdSession.class)
                    .doesNotHaveBean(Elections.class)
                    .doesNotHaveBean(Election.class));
  }

  @Test
  void standaloneElectsInMemoryLeadsAndSaysSoLoudly(CapturedOutput output) {
    this.contextRunner
        .withPropertyValues("conch.standalone=true")
        .run(
            context -> {
              assertThat(context)
                  .hasSingleBean(LocalOffices.class)
                  .doesNotHaveBean(Client.class)
                  .doesNotHaveBean(EtcdSession.class);
              assertThat(context.getBean(Election.class).awaitLeadership(Duration.ofSeconds(10)))
                  .isTrue();
              assertThat(output).contains("WARN").contains("conch.standalone=true");
            });
  }

  @Test
  void electionsSayWhichOfficesExistWhenAskedForAnotherOne() {
    this.contextRunner.run(
        context ->
            assertThatExceptionOfType(NoSuchElementException.class)
                .isThrownBy(() -> context.getBean(Elections.class).get("nope"))
                .withMessageContaining("nope")
                .withMessageContaining("[app]"));
  }

  @Configuration(proxyBeanMethods = false)
  static class InjectsElections {

    @Bean
    InjectedElections injectedElections(Election primary, @Qualifier("billing") Election billing) {
      return new InjectedElections(primary, billing);
    }
  }

  record InjectedElections(Election primary, Election billing) {}

  @Configuration(proxyBeanMethods = false)
  static class UserSession {

    @Bean
    EtcdSession userSession(Client client) {
      return EtcdSession.open(
          client,
          SessionOptions.defaults().withPrefix("/mine/").withTimeout(Duration.ofMillis(500)));
    }
  }
}
