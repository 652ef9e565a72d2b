package dev.conch.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.spring.OnLeadership;
import dev.conch.spring.OnLeadership.Transition;
import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Invalid configuration fails startup, and {@link InvalidConchConfigurationFailureAnalyzer} names
 * the property, the bad value and what is accepted.
 */
class InvalidConchConfigurationFailureAnalyzerTest {

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(ConchAutoConfiguration.class))
          .withPropertyValues(
              "spring.application.name=app",
              "conch.etcd.endpoints=http://127.0.0.1:1",
              "conch.etcd.timeout=1s");

  @Test
  void fractionalTtlIsRefused() {
    FailureAnalysis analysis = analyze("conch.ttl=1500ms");

    assertThat(analysis.getDescription()).isEqualTo("Invalid value '1s500ms' for 'conch.ttl'.");
    assertThat(analysis.getAction())
        .isEqualTo("Update 'conch.ttl'. Accepted: whole seconds, at least 2s.");
  }

  @Test
  void ttlBelowTwoSecondsIsRefused() {
    FailureAnalysis analysis = analyze("conch.ttl=1");

    assertThat(analysis.getDescription()).isEqualTo("Invalid value '1s' for 'conch.ttl'.");
  }

  @Test
  void officeNameWithASlashIsRefused() {
    FailureAnalysis analysis = analyze("conch.office=billing/eu");

    assertThat(analysis.getDescription())
        .isEqualTo("Invalid value 'billing/eu' for 'conch.office'.");
    assertThat(analysis.getAction()).contains("without '/'");
  }

  @Test
  void applicationNameThatIsNoOfficeNameIsRefusedUnderItsOwnName() {
    FailureAnalysis analysis = analyze("spring.application.name=my app");

    assertThat(analysis.getDescription())
        .isEqualTo("Invalid value 'my app' for 'spring.application.name'.");
  }

  @Test
  void officeKeyThatIsNoOfficeNameIsRefused() {
    FailureAnalysis analysis = analyze("conch.offices[a b].hook-timeout=1s");

    assertThat(analysis.getDescription()).isEqualTo("Invalid value 'a b' for 'conch.offices'.");
  }

  @Test
  void endpointWithoutSchemeIsRefused() {
    FailureAnalysis analysis = analyze("conch.etcd.endpoints=127.0.0.1:2379");

    assertThat(analysis.getDescription())
        .isEqualTo("Invalid value '127.0.0.1:2379' for 'conch.etcd.endpoints'.");
    assertThat(analysis.getAction()).contains("http:// or https:// URLs with host and port");
  }

  @Test
  void plainEndpointWithAnSslBundleIsRefused() {
    EtcdConnectionDetails details =
        new EtcdConnectionDetails() {
          @Override
          public List<URI> getEndpoints() {
            return List.of(URI.create("https://127.0.0.1:1"), URI.create("http://127.0.0.1:2"));
          }

          @Override
          public SslBundle getSslBundle() {
            return SslBundle.systemDefault();
          }
        };
    this.contextRunner
        .withBean(EtcdConnectionDetails.class, () -> details)
        .run(
            context -> {
              FailureAnalysis analysis =
                  ConchTestSupport.analyze(context, new InvalidConchConfigurationFailureAnalyzer());
              assertThat(analysis.getDescription())
                  .isEqualTo(
                      "Invalid value 'https://127.0.0.1:1,http://127.0.0.1:2'"
                          + " for 'conch.etcd.endpoints'.");
              assertThat(analysis.getAction()).contains("only https:// URLs when TLS is on");
            });
  }

  @Test
  void stopTimeoutThatCannotFitBeforeTheLeaseDeadlineIsRefused() {
    FailureAnalysis analysis = analyze("conch.ttl=3s", "conch.stop-timeout=2500ms");

    assertThat(analysis.getDescription())
        .isEqualTo("Invalid value '2s500ms' for 'conch.stop-timeout'.");
    assertThat(analysis.getAction())
        .contains("must leave at least 400ms of the ttl (3s)")
        .contains("raise the ttl or shorten the stop timeout");
  }

  @Test
  void officeStopTimeoutThatCannotFitIsRefusedUnderTheOfficesProperty() {
    FailureAnalysis analysis = analyze("conch.offices.billing.stop-timeout=20s", "conch.ttl=10s");

    assertThat(analysis.getDescription())
        .isEqualTo("Invalid value '20s' for 'conch.offices.billing.stop-timeout'.");
  }

  @Test
  void prefixWithoutSlashesIsRefused() {
    FailureAnalysis analysis = analyze("conch.etcd.prefix=conch");

    assertThat(analysis.getDescription())
        .isEqualTo("Invalid value 'conch' for 'conch.etcd.prefix'.");
  }

  @Test
  void renewIntervalAsLongAsTheTtlIsRefused() {
    FailureAnalysis analysis = analyze("conch.renew-interval=10s");

    assertThat(analysis.getDescription())
        .isEqualTo("Invalid value '10s' for 'conch.renew-interval'.");
  }

  @Test
  void retryMaxBelowRetryInitialIsRefused() {
    FailureAnalysis analysis = analyze("conch.retry.initial=5s", "conch.retry.max=1s");

    assertThat(analysis.getDescription()).isEqualTo("Invalid value '1s' for 'conch.retry.max'.");
    assertThat(analysis.getAction()).contains("at least retry-initial");
  }

  @Test
  void noOfficeAtAllIsRefused() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(ConchAutoConfiguration.class))
        .withPropertyValues("conch.standalone=true")
        .run(
            context -> {
              FailureAnalysis analysis =
                  ConchTestSupport.analyze(context, new InvalidConchConfigurationFailureAnalyzer());
              assertThat(analysis.getDescription()).isEqualTo("No value for 'conch.office'.");
              assertThat(analysis.getAction())
                  .contains("set conch.office or spring.application.name");
            });
  }

  @Test
  void onLeadershipWithoutOfficeNeedsADefaultOffice() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(ConchAutoConfiguration.class))
        .withPropertyValues("conch.standalone=true", "conch.offices.billing.hook-timeout=1s")
        .withBean(DefaultOfficeHook.class)
        .run(
            context -> {
              FailureAnalysis analysis =
                  ConchTestSupport.analyze(context, new InvalidConchConfigurationFailureAnalyzer());
              assertThat(analysis.getDescription()).isEqualTo("No value for 'conch.office'.");
              assertThat(analysis.getAction()).contains("DefaultOfficeHook.start()");
            });
  }

  private FailureAnalysis analyze(String... properties) {
    return ConchTestSupport.analyze(
        this.contextRunner.withPropertyValues(properties),
        new InvalidConchConfigurationFailureAnalyzer());
  }

  static class DefaultOfficeHook {

    @OnLeadership(on = Transition.ACQUIRED)
    void start() {}
  }
}
