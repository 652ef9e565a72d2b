package dev.conch.spring.boot.autoconfigure.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionEvent;
import dev.conch.ElectionOptions;
import dev.conch.LossReason;
import dev.conch.local.LocalOffices;
import dev.conch.spring.CampaigningEvent;
import dev.conch.spring.Elections;
import dev.conch.spring.LeaderObservedEvent;
import dev.conch.spring.LeadershipAcquiredEvent;
import dev.conch.spring.LeadershipLostEvent;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.boot.metrics.ConchMetrics;
import dev.conch.spring.observation.ConchMeterDocumentation;
import dev.conch.spring.observation.ConchObservationDocumentation;
import io.micrometer.common.docs.KeyName;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.docs.ObservationDocumentation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
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
@Timeout(60)
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
              assertThat(
                      registry.get("conch.leader").tag("conch.office", "billing").gauge().value())
                  .isEqualTo(1);
              assertThat(
                      registry.get("conch.campaign").tag("conch.office", "billing").timer().count())
                  .isEqualTo(1);
              // A counter: it only grows.
              assertThat(
                      registry
                          .get("conch.events.dropped")
                          .tag("conch.office", "billing")
                          .functionCounter()
                          .count())
                  .isZero();

              // Boot closes the registry first on shutdown: resign while it is open.
              context.getBean(Election.class).resign();
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(() -> count(registry, "resigned", "none") == 1);
              assertThat(
                      registry.get("conch.leader").tag("conch.office", "billing").gauge().value())
                  .isZero();
              assertThat(
                      registry
                          .get("conch.term")
                          .tags(
                              "conch.office",
                              "billing",
                              "conch.kind",
                              "resigned",
                              "conch.reason",
                              "none")
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
                      () ->
                          registry.find("conch.leader").tag("conch.office", "billing").gauge()
                              != null);
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
                                      .tags("conch.office", "billing", "conch.kind", "lost")
                                      .tag("conch.reason", "key_deleted")
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
        .run(
            context -> {
              assertThat(session.find("conch.renewal.failures").meters()).hasSize(1);
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(() -> session.find("conch.office.failover.budget").gauge() != null);
            });
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
            "conch.renewal.failures",
            "conch.office.leaderless",
            "conch.office.leaderless.observed",
            "conch.office.failover.budget");
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
              if (doc.getType() != Meter.Type.TIMER) {
                // A timer's unit is the registry's.
                assertThat(meter.getId().getBaseUnit()).isEqualTo(doc.getBaseUnit());
              }
            });
  }

  @Test
  void metricsListenToTheLeadershipEventsOnlyNotToTheRawElectionEvents() {
    this.contextRunner
        .withBean(SimpleMeterRegistry.class)
        .run(
            context -> {
              ConchMetrics metrics = context.getBean(ConchMetrics.class);
              Election election = context.getBean(Election.class);
              assertThat(supports(metrics, new CampaigningEvent(election, true))).isTrue();
              assertThat(
                      supports(
                          metrics, new LeadershipAcquiredEvent(election, 1, election.candidate())))
                  .isTrue();
              assertThat(
                      supports(
                          metrics,
                          new LeadershipLostEvent(
                              election, 1, election.candidate(), LossReason.RESIGNED)))
                  .isTrue();
              assertThat(supports(metrics, new LeaderObservedEvent(election, Optional.empty())))
                  .isTrue();
              assertThat(
                      metrics.supportsEventType(
                          ResolvableType.forClass(ApplicationStartedEvent.class)))
                  .isTrue();
              assertThat(supports(metrics, new ContextRefreshedEvent(context))).isFalse();
              assertThat(
                      supports(
                          metrics,
                          new PayloadApplicationEvent<>(this, new ElectionEvent.Joined("billing"))))
                  .isFalse();
              assertThat(supports(metrics, new PayloadApplicationEvent<>(this, "x"))).isFalse();
            });
  }

  @Test
  void transitionsTermsCampaignsAndInterruptedWorkComeFromTheLeadershipEvents() {
    // An election never started: only the events below tell the meters of it.
    try (Election reports =
        new LocalOffices().election(ElectionOptions.builder("reports").build())) {
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      ConchMetrics metrics = new ConchMetrics(new Elections(List.of(reports), null), null);
      metrics.bindTo(registry);

      metrics.onApplicationEvent(new CampaigningEvent(reports, true));
      metrics.onApplicationEvent(new LeadershipAcquiredEvent(reports, 42, reports.candidate()));
      metrics.onApplicationEvent(
          new LeadershipLostEvent(
              reports,
              42,
              reports.candidate(),
              LossReason.LEASE_EXPIRED,
              List.of("Reports.nightly()")));
      metrics.onApplicationEvent(new CampaigningEvent(reports, false));
      metrics.onApplicationEvent(new LeadershipAcquiredEvent(reports, 43, reports.candidate()));
      metrics.onApplicationEvent(
          new LeadershipLostEvent(reports, 43, reports.candidate(), LossReason.TRANSFERRED));

      assertThat(count(registry, "reports", "acquired", "none")).isEqualTo(2);
      assertThat(count(registry, "reports", "lost", "lease_expired")).isEqualTo(1);
      assertThat(count(registry, "reports", "transferred", "none")).isEqualTo(1);
      assertThat(
              registry
                  .get("conch.term")
                  .tags("conch.office", "reports", "conch.kind", "lost")
                  .tag("conch.reason", "lease_expired")
                  .timer()
                  .count())
          .isEqualTo(1);
      assertThat(
              registry
                  .get("conch.term.interrupted")
                  .tags("conch.office", "reports", "conch.work", "Reports.nightly()")
                  .counter()
                  .count())
          .isEqualTo(1);
      assertThat(registry.get("conch.campaign").tag("conch.office", "reports").timer().count())
          .isEqualTo(2);
    }
  }

  @Test
  void everyTagKeyOfConchStartsWithItsNamespaceButSpringsOwn() {
    Set<String> springs = Set.of("code.namespace", "code.function", "outcome", "exception");
    List<KeyName> keys = new ArrayList<>();
    for (ConchMeterDocumentation meter : ConchMeterDocumentation.values()) {
      keys.addAll(Arrays.asList(meter.getKeyNames()));
    }
    for (ObservationDocumentation observation : ConchObservationDocumentation.values()) {
      keys.addAll(Arrays.asList(observation.getLowCardinalityKeyNames()));
      keys.addAll(Arrays.asList(observation.getHighCardinalityKeyNames()));
    }
    assertThat(keys)
        .extracting(KeyName::asString)
        .filteredOn(key -> !springs.contains(key))
        .isNotEmpty()
        .allSatisfy(key -> assertThat(key).startsWith("conch."));
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

  private static boolean supports(ConchMetrics metrics, ApplicationEvent event) {
    return metrics.supportsEventType(
        (event instanceof PayloadApplicationEvent<?> payload)
            ? payload.getResolvableType()
            : ResolvableType.forInstance(event));
  }

  private static double count(MeterRegistry registry, String kind, String reason) {
    return count(registry, "billing", kind, reason);
  }

  private static double count(MeterRegistry registry, String office, String kind, String reason) {
    var counter =
        registry
            .find("conch.transitions")
            .tags("conch.office", office, "conch.kind", kind, "conch.reason", reason)
            .counter();
    return (counter != null) ? counter.count() : 0;
  }
}
