package dev.conch.spring.boot.autoconfigure.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionEvent;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.boot.metrics.ConchMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.event.ApplicationStartedEvent;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.PayloadApplicationEvent;
import org.springframework.context.event.ContextRefreshedEvent;
import org.springframework.core.ResolvableType;

/** When {@link ConchMetrics} exists, and what it counts on an in-memory office. */
class ConchMetricsAutoConfigurationTest {

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ConchAutoConfiguration.class, ConchMetricsAutoConfiguration.class))
          .withPropertyValues("conch.standalone=true", "conch.office=billing");

  @Test
  void metricsNeedAMeterRegistry() {
    this.contextRunner.run(context -> assertThat(context).doesNotHaveBean(ConchMetrics.class));
  }

  @Test
  void withoutMicrometerThereAreNoMetricsAndTheElectionsStillWork() {
    this.contextRunner
        .withBean(SimpleMeterRegistry.class)
        .withClassLoader(new FilteredClassLoader("io.micrometer"))
        .run(
            context -> {
              assertThat(context).hasNotFailed().doesNotHaveBean(ConchMetrics.class);
              assertThat(context).hasSingleBean(Election.class);
            });
  }

  @Test
  void leaderGaugeTransitionsAndCampaignTimeFollowTheOffice() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    this.contextRunner
        .withBean(MeterRegistry.class, () -> registry)
        .run(
            context -> {
              assertThat(context).hasSingleBean(ConchMetrics.class);
              assertThat(context.getBean(Election.class).awaitLeadership(Duration.ofSeconds(10)))
                  .isTrue();
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(() -> count(registry, "acquired", "none") == 1);
              assertThat(registry.get("conch.leader").tag("office", "billing").gauge().value())
                  .isEqualTo(1);
              assertThat(registry.get("conch.campaign").tag("office", "billing").timer().count())
                  .isEqualTo(1);
              // A counter: it only grows.
              assertThat(
                      registry
                          .get("conch.events.dropped")
                          .tag("office", "billing")
                          .functionCounter()
                          .count())
                  .isZero();
            });
    // The lifecycle waits on shutdown until the resignation reached the listeners.
    assertThat(count(registry, "resigned", "none")).isEqualTo(1);
    assertThat(registry.get("conch.leader").tag("office", "billing").gauge().value()).isZero();
  }

  @Test
  void metricsListenToConchsEventsOnly() {
    this.contextRunner
        .withBean(SimpleMeterRegistry.class)
        .run(
            context -> {
              ConchMetrics metrics = context.getBean(ConchMetrics.class);
              ElectionEvent joined = new ElectionEvent.Joined("billing");
              assertThat(
                      metrics.supportsEventType(
                          typeOf(new PayloadApplicationEvent<>(this, joined))))
                  .isTrue();
              assertThat(
                      metrics.supportsEventType(
                          ResolvableType.forClass(ApplicationStartedEvent.class)))
                  .isTrue();
              assertThat(metrics.supportsEventType(typeOf(new ContextRefreshedEvent(context))))
                  .isFalse();
              assertThat(
                      metrics.supportsEventType(typeOf(new PayloadApplicationEvent<>(this, "x"))))
                  .isFalse();
            });
  }

  @Test
  void renewalFailuresAreCountedOncePerSession() {
    this.contextRunner
        .withBean(SimpleMeterRegistry.class)
        .withPropertyValues("conch.standalone=false", "conch.etcd.endpoints=http://127.0.0.1:1")
        .run(
            context ->
                assertThat(
                        context.getBean(MeterRegistry.class).get("conch.renewal.failures").meters())
                    .singleElement()
                    .satisfies(meter -> assertThat(meter.getId().getTags()).isEmpty()));
  }

  private static ResolvableType typeOf(ApplicationEvent event) {
    return (event instanceof PayloadApplicationEvent<?> payload)
        ? payload.getResolvableType()
        : ResolvableType.forInstance(event);
  }

  private static double count(MeterRegistry registry, String kind, String reason) {
    var counter =
        registry
            .find("conch.transitions")
            .tags("office", "billing", "kind", kind, "reason", reason)
            .counter();
    return (counter != null) ? counter.count() : 0;
  }
}
