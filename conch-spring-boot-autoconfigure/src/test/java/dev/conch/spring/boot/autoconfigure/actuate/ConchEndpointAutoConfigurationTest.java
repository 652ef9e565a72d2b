package dev.conch.spring.boot.autoconfigure.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.tuple;

import dev.conch.Election;
import dev.conch.local.LocalOffices;
import dev.conch.spring.Elections;
import dev.conch.spring.boot.actuate.endpoint.ConchEndpoint;
import dev.conch.spring.boot.actuate.endpoint.ConchEndpoint.OfficeDescriptor;
import dev.conch.spring.boot.actuate.endpoint.ConchEndpointWebExtension;
import dev.conch.spring.boot.actuate.endpoint.TimingDescriptor;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * When {@link ConchEndpointAutoConfiguration} contributes the endpoint, its access and its hints.
 */
class ConchEndpointAutoConfigurationTest {

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ConchAutoConfiguration.class, ConchEndpointAutoConfiguration.class))
          .withPropertyValues(
              "conch.standalone=true",
              "conch.office=billing",
              "management.endpoints.web.exposure.include=conch");

  @Test
  void exposedEndpointComesWithItsWebExtension() {
    this.contextRunner.run(
        context ->
            assertThat(context)
                .hasSingleBean(ConchEndpoint.class)
                .hasSingleBean(ConchEndpointWebExtension.class));
  }

  @Test
  void endpointIsReadOnlyUnlessTheApplicationGrantsMore() {
    Endpoint endpoint = ConchEndpoint.class.getAnnotation(Endpoint.class);

    assertThat(endpoint.id()).isEqualTo("conch");
    assertThat(endpoint.defaultAccess()).isEqualTo(Access.READ_ONLY);
  }

  @Test
  void endpointOfNoAccessIsNotCreated() {
    this.contextRunner
        .withPropertyValues("management.endpoint.conch.access=NONE")
        .run(context -> assertThat(context).doesNotHaveBean(ConchEndpoint.class));
  }

  @Test
  void endpointThatIsNotExposedIsNotCreated() {
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                ConchAutoConfiguration.class, ConchEndpointAutoConfiguration.class))
        .withPropertyValues("conch.standalone=true", "conch.office=billing")
        .run(context -> assertThat(context).doesNotHaveBean(ConchEndpoint.class));
  }

  @Test
  void withoutTheActuatorThereIsNoEndpointAndTheElectionsStillWork() {
    this.contextRunner
        .withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate"))
        .run(
            context -> {
              assertThat(context).hasNotFailed().doesNotHaveBean(ConchEndpoint.class);
              assertThat(context).hasSingleBean(Election.class);
            });
  }

  @Test
  void disabledConchHasNoEndpoint() {
    this.contextRunner
        .withPropertyValues("conch.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean(ConchEndpoint.class));
  }

  @Test
  void userEndpointBeanBacksOffAutoConfiguredEndpoint() {
    this.contextRunner
        .withBean(
            "userEndpoint",
            ConchEndpoint.class,
            () ->
                new ConchEndpoint(
                    new Elections(java.util.List.of(), null),
                    o -> Optional.empty(),
                    o -> Optional.empty(),
                    o -> java.util.List.of(),
                    o -> Optional.empty(),
                    Optional::empty,
                    (o, n) -> java.util.List.of()))
        .run(
            context ->
                assertThat(context).hasSingleBean(ConchEndpoint.class).hasBean("userEndpoint"));
  }

  @Test
  void overviewCarriesEachEtcdOfficesTimingBudget() {
    // No etcd listens there: the overview needs none.
    this.contextRunner
        .withPropertyValues(
            "conch.standalone=false",
            "conch.etcd.endpoints=http://127.0.0.1:1",
            "conch.ttl=10s", // with a runner the default would be 15 s
            "conch.runner.command=sleep,600",
            "conch.runner.office=jobs",
            "conch.runner.kill-after=2s",
            "conch.offices.jobs.hook-timeout=30s")
        .run(
            context -> {
              ConchEndpoint endpoint = context.getBean(ConchEndpoint.class);

              assertThat(endpoint.conch().offices())
                  .extracting(OfficeDescriptor::office, OfficeDescriptor::timing)
                  .containsExactlyInAnyOrder(
                      // Spring defaults: TTL 10 s, stop 1 s + margin 500 ms: W = 8.5 s; lose
                      // hooks are not waited for past D - 500 ms.
                      tuple(
                          "billing",
                          new TimingDescriptor(
                              "10s",
                              "1s500ms",
                              "2s125ms",
                              "1s62ms",
                              "5s312ms",
                              "10s500ms",
                              "30s",
                              "D-500ms",
                              "6s375ms",
                              false)),
                      // The runner: stop 2 s + 500 ms slack + margin: W = 7 s, renewed every
                      // 1.75 s; SIGKILL at D - 1 s, on-lose killed at D - 500 ms; a pause up to
                      // 10 s - 1.75 s - 500 ms still ends with the command killed in time. A
                      // graceful hand-over: the kill-after, then up to 2 s for the group to be
                      // gone after its SIGKILL (ExternalCommandRunner.KILL_WAIT).
                      tuple(
                          "jobs",
                          new TimingDescriptor(
                              "10s",
                              "3s",
                              "1s750ms",
                              "875ms",
                              "4s375ms",
                              "10s500ms",
                              "4s",
                              "D-500ms",
                              "7s750ms",
                              true)));
            });
  }

  @Test
  void standaloneOfficesHaveNoTimingBudget() {
    this.contextRunner.run(
        context ->
            assertThat(context.getBean(ConchEndpoint.class).conch().offices())
                .extracting(OfficeDescriptor::timing)
                .containsOnlyNulls());
  }

  @Test
  void standaloneEndpointAnswersFromTheInMemoryOffices() {
    this.contextRunner.run(
        context -> {
          Election election = context.getBean(Election.class);
          assertThat(election.awaitLeadership(Duration.ofSeconds(10))).isTrue();
          ConchEndpoint endpoint = context.getBean(ConchEndpoint.class);
          long token = election.token().orElseThrow();

          assertThat(endpoint.leader("billing").rev()).isEqualTo(token);
          assertThat(endpoint.leader("vacant")).isNull();
          assertThat(endpoint.assertion("billing", "assert", token).held()).isTrue();
          assertThat(endpoint.assertion("billing", "assert", token + 1).held()).isFalse();
          assertThat(endpoint.conch().offices())
              .singleElement()
              .satisfies(office -> assertThat(office.token()).isEqualTo(token));
          assertThat(context.getBean(LocalOffices.class).leader("billing")).isPresent();
          assertThatIllegalArgumentException()
              .isThrownBy(() -> endpoint.assertion("billing", "other", null));
        });
  }
}
