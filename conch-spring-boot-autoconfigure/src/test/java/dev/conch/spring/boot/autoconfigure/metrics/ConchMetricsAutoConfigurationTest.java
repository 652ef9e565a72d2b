package dev.conch.spring.boot.autoconfigure.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionEvent;
import dev.conch.local.LocalOffices;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.boot.metrics.ConchMeterDocumentation;
import dev.conch.spring.boot.metrics.ConchMetrics;
import io.micrometer.common.docs.KeyName;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.event.ApplicationStartedEvent;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.PayloadApplicationEvent;
import org.springframework.context.event.ContextRefreshedEvent;
import org.springframework.core.ResolvableType;

/**
 * When {@link ConchMetrics} exists, that Boot binds it to the registry, what it counts on an
 * in-memory office, and that every meter it registers is the one {@link ConchMeterDocumentation}
 * documents.
 */
class ConchMetricsAutoConfigurationTest {

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ConchAutoConfiguration.class,
                  MetricsAutoConfiguration.class,
                  ConchMetricsAutoConfiguration.class))
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

              // Boot closes the registry first on shutdown: resign while it is open.
              context.getBean(Election.class).resign();
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(() -> count(registry, "resigned", "none") == 1);
              assertThat(registry.get("conch.leader").tag("office", "billing").gauge().value())
                  .isZero();
              assertThat(
                      registry
                          .get("conch.term")
                          .tags("office", "billing", "kind", "resigned", "reason", "none")
                          .timer()
                          .count())
                  .isEqualTo(1);
            });
  }

  @Test
  void itIsAMeterBinderThatBootBindsToTheRegistry() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    this.contextRunner
        .withBean(MeterRegistry.class, () -> registry)
        .run(
            context -> {
              assertThat(context).getBean(ConchMetrics.class).isInstanceOf(MeterBinder.class);
              // Registered in the registry Boot bound it to, with the office's first event.
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(
                      () -> registry.find("conch.leader").tag("office", "billing").gauge() != null);
            });
  }

  @Test
  void eachTermIsTimedWhenItEndsWithHowItEnded() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    this.contextRunner
        .withBean(MeterRegistry.class, () -> registry)
        .withBean(LocalOffices.class, LocalOffices::new)
        .run(
            context -> {
              Election election = context.getBean(Election.class);
              assertThat(election.awaitLeadership(Duration.ofSeconds(10))).isTrue();
              long first = election.token().orElseThrow();
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(() -> count(registry, "acquired", "none") == 1);
              // The term in progress is the gauge; the timer holds ended terms only.
              assertThat(registry.find("conch.term").timers()).isEmpty();

              context.getBean(LocalOffices.class).revoke("billing");

              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(() -> election.token().orElse(first) != first);
              await()
                  .atMost(Duration.ofSeconds(10))
                  .untilAsserted(
                      () ->
                          assertThat(
                                  registry
                                      .get("conch.term")
                                      .tags("office", "billing", "kind", "lost")
                                      .tag("reason", "key_deleted")
                                      .timer()
                                      .count())
                              .isEqualTo(1));
            });
  }

  @Test
  void everyMeterRegisteredIsDocumentedWithItsTypeAndTagKeys() {
    SimpleMeterRegistry session = new SimpleMeterRegistry();
    this.contextRunner
        .withBean(MeterRegistry.class, () -> session)
        .withPropertyValues("conch.standalone=false", "conch.etcd.endpoints=http://127.0.0.1:1")
        .run(context -> assertThat(session.find("conch.renewal.failures").meters()).hasSize(1));
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    this.contextRunner
        .withBean(MeterRegistry.class, () -> registry)
        .withBean(LocalOffices.class, LocalOffices::new)
        .run(
            context -> {
              Election election = context.getBean(Election.class);
              assertThat(election.awaitLeadership(Duration.ofSeconds(10))).isTrue();
              context.getBean(LocalOffices.class).revoke("billing");
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(() -> registry.find("conch.term").timer() != null);
            });
    Map<String, ConchMeterDocumentation> documented =
        Arrays.stream(ConchMeterDocumentation.values())
            .collect(Collectors.toMap(ConchMeterDocumentation::getName, Function.identity()));
    List<Meter> conch =
        Stream.concat(session.getMeters().stream(), registry.getMeters().stream())
            .filter(meter -> meter.getId().getName().startsWith("conch."))
            .toList();
    assertThat(conch)
        .extracting(m -> m.getId().getName())
        .contains(
            "conch.leader",
            "conch.transitions",
            "conch.campaign",
            "conch.term",
            "conch.events.dropped",
            "conch.renewal.failures");
    assertThat(conch)
        .allSatisfy(
            meter -> {
              ConchMeterDocumentation doc = documented.get(meter.getId().getName());
              assertThat(doc).as(meter.getId().getName()).isNotNull();
              assertThat(meter.getId().getType()).isEqualTo(doc.getType());
              assertThat(meter.getId().getTags())
                  .extracting(Tag::getKey)
                  .containsExactlyInAnyOrderElementsOf(
                      Arrays.stream(doc.getKeyNames()).map(KeyName::asString).toList());
              assertThat(meter.getId().getDescription()).isEqualTo(doc.getDescription());
            });
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
