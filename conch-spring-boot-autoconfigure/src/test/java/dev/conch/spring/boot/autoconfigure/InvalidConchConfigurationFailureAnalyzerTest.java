package dev.conch.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.spring.OnLeadership;
import dev.conch.spring.OnLeadership.Transition;
import java.net.URI;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Invalid configuration fails startup: a refused value as Boot's {@link
 * InvalidConfigurationPropertyValueException} naming the property, the value and (its reason) what
 * is accepted; a missing one through {@link InvalidConchConfigurationFailureAnalyzer}. What Boot's
 * analysis makes of the former, origin included, {@link InvalidPropertyStartupTest} shows.
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
    InvalidConfigurationPropertyValueException refusal = refusal("conch.ttl=1500ms");

    assertThat(refusal.getName()).isEqualTo("conch.ttl");
    assertThat(refusal.getReason()).isEqualTo("Accepted: whole seconds, at least 2s.");
  }

  @Test
  void ttlBelowTwoSecondsIsRefused() {
    InvalidConfigurationPropertyValueException refusal = refusal("conch.ttl=1");

    assertThat(refusal.getName()).isEqualTo("conch.ttl");
    assertThat(refusal.getReason()).contains("at least 2s");
  }

  @Test
  void officeNameWithASlashIsRefused() {
    InvalidConfigurationPropertyValueException refusal = refusal("conch.office=billing/eu");

    assertThat(refusal.getName()).isEqualTo("conch.office");
    assertThat(refusal.getValue()).isEqualTo("billing/eu");
    assertThat(refusal.getReason()).contains("without '/'");
  }

  @Test
  void applicationNameThatIsNoOfficeNameIsRefusedUnderItsOwnName() {
    InvalidConfigurationPropertyValueException refusal = refusal("spring.application.name=my app");

    assertThat(refusal.getName()).isEqualTo("spring.application.name");
    assertThat(refusal.getValue()).isEqualTo("my app");
  }

  @Test
  void officeKeyThatIsNoOfficeNameIsRefused() {
    InvalidConfigurationPropertyValueException refusal =
        refusal("conch.offices[a b].hook-timeout=1s");

    assertThat(refusal.getName()).isEqualTo("conch.offices");
    assertThat(refusal.getValue()).isEqualTo("a b");
  }

  @Test
  void endpointWithoutSchemeIsRefused() {
    InvalidConfigurationPropertyValueException refusal =
        refusal("conch.etcd.endpoints=127.0.0.1:2379");

    assertThat(refusal.getName()).isEqualTo("conch.etcd.endpoints");
    assertThat(refusal.getValue()).isEqualTo("127.0.0.1:2379");
    assertThat(refusal.getReason()).contains("http:// or https:// URLs with host and port");
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
    InvalidConfigurationPropertyValueException refusal =
        refusal("conch.ttl=3s", "conch.stop-timeout=2500ms");

    assertThat(refusal.getName()).isEqualTo("conch.stop-timeout");
    assertThat(refusal.getReason())
        .contains("must leave at least 400ms of the ttl (3s)")
        .contains("raise the ttl or shorten the stop timeout");
  }

  @Test
  void officeStopTimeoutThatCannotFitIsRefusedUnderTheOfficesProperty() {
    InvalidConfigurationPropertyValueException refusal =
        refusal("conch.offices.billing.stop-timeout=20s", "conch.ttl=10s");

    assertThat(refusal.getName()).isEqualTo("conch.offices.billing.stop-timeout");
  }

  @Test
  void prefixWithoutSlashesIsRefused() {
    InvalidConfigurationPropertyValueException refusal = refusal("conch.etcd.prefix=conch");

    assertThat(refusal.getName()).isEqualTo("conch.etcd.prefix");
    assertThat(refusal.getValue()).isEqualTo("conch");
  }

  @Test
  void renewIntervalAsLongAsTheTtlIsRefused() {
    InvalidConfigurationPropertyValueException refusal = refusal("conch.renew-interval=10s");

    assertThat(refusal.getName()).isEqualTo("conch.renew-interval");
  }

  @Test
  void retryMaxBelowRetryInitialIsRefused() {
    InvalidConfigurationPropertyValueException refusal =
        refusal("conch.retry.initial=5s", "conch.retry.max=1s");

    assertThat(refusal.getName()).isEqualTo("conch.retry.max");
    assertThat(refusal.getReason()).contains("at least retry-initial");
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

  private InvalidConfigurationPropertyValueException refusal(String... properties) {
    AtomicReference<Throwable> failure = new AtomicReference<>();
    this.contextRunner
        .withPropertyValues(properties)
        .run(
            context -> {
              assertThat(context).hasFailed();
              failure.set(context.getStartupFailure());
            });
    return refusalIn(failure.get());
  }

  /** The refusal in {@code failure}'s causes. */
  static InvalidConfigurationPropertyValueException refusalIn(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof InvalidConfigurationPropertyValueException refusal) {
        return refusal;
      }
    }
    throw new AssertionError(
        "no InvalidConfigurationPropertyValueException in " + failure, failure);
  }

  static class DefaultOfficeHook {

    @OnLeadership(on = Transition.ACQUIRED)
    void start() {}
  }
}
