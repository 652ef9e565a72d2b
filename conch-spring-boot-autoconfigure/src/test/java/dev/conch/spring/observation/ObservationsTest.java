package dev.conch.spring.observation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.Leadership;
import dev.conch.LossReason;
import dev.conch.local.LocalOffices;
import dev.conch.spring.OnLeadership;
import dev.conch.spring.OnLeadership.Transition;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.boot.autoconfigure.leaderonly.LeaderOnlyAutoConfiguration;
import dev.conch.spring.boot.autoconfigure.observation.ConchObservationAutoConfiguration;
import dev.conch.spring.leaderonly.LeaderOnly;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.MDC;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The observations of the starter when the application has an {@code ObservationRegistry}: a {@code
 * conch.hook} observation per hook call (no observation spans a term) and a {@code
 * conch.leaderonly} observation per {@code @LeaderOnly} call, on the in-memory offices, asserted
 * with a {@link TestObservationRegistry}; named by the application's convention beans when it has
 * them.
 */
@Timeout(60)
class ObservationsTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private final LocalOffices offices = new LocalOffices();

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ConchObservationAutoConfiguration.class, ConchAutoConfiguration.class))
          .withPropertyValues("conch.standalone=true", "spring.application.name=app")
          .withBean(LocalOffices.class, () -> this.offices);

  @Test
  void noObservationSpansATerm() {
    this.contextRunner
        .withBean(TestObservationRegistry.class, ObservationsTest::registry)
        .run(
            context -> {
              TestObservationRegistry registry = context.getBean(TestObservationRegistry.class);
              Election election = context.getBean(Election.class);
              assertThat(election.awaitLeadership(WAIT)).isTrue();
              long first = election.token().orElseThrow();

              context.getBean(LocalOffices.class).revoke("app");
              await().atMost(WAIT).until(() -> election.token().orElse(first) != first);

              // Two terms, no hooks: nothing observed (the terms are in the meters).
              TestObservationRegistryAssert.assertThat(registry).doesNotHaveAnyObservation();
            });
  }

  @Test
  void eachHookCallIsObservedAndIsTheCurrentObservationWhileTheHookRuns() {
    this.contextRunner
        .withBean(TestObservationRegistry.class, ObservationsTest::registry)
        .withBean("hooks", Hooks.class)
        .run(
            context -> {
              TestObservationRegistry registry = context.getBean(TestObservationRegistry.class);
              Hooks hooks = context.getBean(Hooks.class);
              Election election = context.getBean(Election.class);
              assertThat(election.awaitLeadership(WAIT)).isTrue();
              long token = election.token().orElseThrow();
              await().atMost(WAIT).until(() -> hooks.seen.size() == 1);

              context.getBean(LocalOffices.class).revoke("app");
              await().atMost(WAIT).until(() -> hooks.seen.size() >= 2);

              Seen up = hooks.seen.get(0);
              assertThat(up.observation).isNotNull();
              assertThat(up.observation.getContextView().getName()).isEqualTo("conch.hook");
              assertThat(up.observation.getContextView().getLowCardinalityKeyValue("conch.hook"))
                  .extracting(KeyValue::getValue)
                  .isEqualTo("hooks.up()");
              assertThat(up.mdc).isEqualTo("conch.hook hooks.up()");
              Seen down = hooks.seen.get(1);
              assertThat(down.observation).isNotNull();
              assertThat(down.mdc).isEqualTo("conch.hook hooks.down()");

              TestObservationRegistryAssert.assertThat(registry)
                  .hasAnObservation(
                      observation ->
                          observation
                              .hasNameEqualTo("conch.hook")
                              .hasLowCardinalityKeyValue("conch.office", "app")
                              .hasLowCardinalityKeyValue("conch.hook", "hooks.up()")
                              .hasLowCardinalityKeyValue("conch.transition", "acquired")
                              .hasLowCardinalityKeyValue("conch.reason", "none")
                              .hasHighCardinalityKeyValue("conch.token", Long.toString(token))
                              .doesNotHaveParentObservation())
                  .hasAnObservation(
                      observation ->
                          observation
                              .hasNameEqualTo("conch.hook")
                              .hasLowCardinalityKeyValue("conch.hook", "hooks.down()")
                              .hasLowCardinalityKeyValue("conch.transition", "lost")
                              .hasLowCardinalityKeyValue("conch.reason", "key_deleted")
                              .hasHighCardinalityKeyValue("conch.token", Long.toString(token))
                              .doesNotHaveParentObservation());
            });
  }

  @Test
  void failingHookCallIsObservedWithItsError() {
    this.contextRunner
        .withBean(TestObservationRegistry.class, ObservationsTest::registry)
        .withBean("failing", Failing.class)
        .run(
            context -> {
              TestObservationRegistry registry = context.getBean(TestObservationRegistry.class);
              await()
                  .atMost(WAIT)
                  .untilAsserted(
                      () ->
                          TestObservationRegistryAssert.assertThat(registry)
                              .hasAnObservation(
                                  observation ->
                                      observation
                                          .hasNameEqualTo("conch.hook")
                                          .hasLowCardinalityKeyValue("conch.hook", "failing.up()")
                                          .hasError()));
            });
  }

  @Test
  void leaderOnlyCallThatRunsIsObservedAndCurrentWhileItRuns() {
    this.contextRunner
        .withConfiguration(AutoConfigurations.of(LeaderOnlyAutoConfiguration.class))
        .withBean(TestObservationRegistry.class, ObservationsTest::registry)
        .withBean(Job.class)
        .run(
            context -> {
              TestObservationRegistry registry = context.getBean(TestObservationRegistry.class);
              Election election = context.getBean(Election.class);
              assertThat(election.awaitLeadership(WAIT)).isTrue();
              long token = election.token().orElseThrow();
              Job job = context.getBean(Job.class);

              assertThat(job.run()).isEqualTo("conch.leaderonly");

              TestObservationRegistryAssert.assertThat(registry)
                  .hasObservationWithNameEqualTo("conch.leaderonly")
                  .that()
                  .hasContextualNameEqualTo("leaderonly Job.run")
                  .hasLowCardinalityKeyValue("code.namespace", Job.class.getCanonicalName())
                  .hasLowCardinalityKeyValue("code.function", "run")
                  .hasLowCardinalityKeyValue("conch.office", "app")
                  .hasLowCardinalityKeyValue("outcome", "SUCCESS")
                  .hasLowCardinalityKeyValue("exception", "none")
                  .hasHighCardinalityKeyValue("conch.token", Long.toString(token))
                  .hasBeenStopped();
            });
  }

  @Test
  void leaderOnlyCallThatIsSkippedIsObservedWithTheOutcomeSkipped() throws Exception {
    try (Election other =
        this.offices.election(ElectionOptions.builder("app").candidateId("other").build())) {
      other.start();
      assertThat(other.awaitLeadership(WAIT)).isTrue();
      this.contextRunner
          .withConfiguration(AutoConfigurations.of(LeaderOnlyAutoConfiguration.class))
          .withBean(TestObservationRegistry.class, ObservationsTest::registry)
          .withBean(Job.class)
          .run(
              context -> {
                TestObservationRegistry registry = context.getBean(TestObservationRegistry.class);
                await().atMost(WAIT).until(() -> this.offices.leader("app").isPresent());

                assertThat(context.getBean(Job.class).run()).isNull();

                TestObservationRegistryAssert.assertThat(registry)
                    .hasObservationWithNameEqualTo("conch.leaderonly")
                    .that()
                    .hasLowCardinalityKeyValue("code.function", "run")
                    .hasLowCardinalityKeyValue("conch.office", "app")
                    .hasLowCardinalityKeyValue("outcome", "SKIPPED")
                    .hasLowCardinalityKeyValue("exception", "none")
                    .hasHighCardinalityKeyValue("conch.token", "none")
                    .hasBeenStopped();
              });
    }
  }

  @Test
  void leaderOnlyCallThatThrowsIsObservedAsAnError() {
    this.contextRunner
        .withConfiguration(AutoConfigurations.of(LeaderOnlyAutoConfiguration.class))
        .withBean(TestObservationRegistry.class, ObservationsTest::registry)
        .withBean(Job.class)
        .run(
            context -> {
              TestObservationRegistry registry = context.getBean(TestObservationRegistry.class);
              assertThat(context.getBean(Election.class).awaitLeadership(WAIT)).isTrue();
              Job job = context.getBean(Job.class);

              assertThatIllegalStateException().isThrownBy(job::fail);

              TestObservationRegistryAssert.assertThat(registry)
                  .hasObservationWithNameEqualTo("conch.leaderonly")
                  .that()
                  .hasLowCardinalityKeyValue("code.function", "fail")
                  .hasLowCardinalityKeyValue("outcome", "ERROR")
                  .hasLowCardinalityKeyValue("exception", "IllegalStateException")
                  .hasError();
            });
  }

  @Test
  void theApplicationsConventionBeansNameTheObservations() {
    this.contextRunner
        .withConfiguration(AutoConfigurations.of(LeaderOnlyAutoConfiguration.class))
        // A global convention of the registry names what has no convention of its own: the
        // application's convention beans are conch's custom ones and beat it.
        .withBean(TestObservationRegistry.class, ObservationsTest::registryWithGlobalConventions)
        .withBean(
            HookObservationConvention.class,
            () ->
                new DefaultHookObservationConvention() {
                  @Override
                  public String getName() {
                    return "my.hook";
                  }
                })
        .withBean(
            LeaderOnlyObservationConvention.class,
            () ->
                new DefaultLeaderOnlyObservationConvention() {
                  @Override
                  public String getName() {
                    return "my.job";
                  }
                })
        .withBean(Job.class)
        .withBean("hooks", Hooks.class)
        .run(
            context -> {
              TestObservationRegistry registry = context.getBean(TestObservationRegistry.class);
              assertThat(context.getBean(Election.class).awaitLeadership(WAIT)).isTrue();
              context.getBean(Job.class).run();
              await()
                  .atMost(WAIT)
                  .untilAsserted(
                      () -> {
                        TestObservationRegistryAssert.assertThat(registry)
                            .hasNumberOfObservationsWithNameEqualTo("my.hook", 1)
                            .hasNumberOfObservationsWithNameEqualTo("my.job", 1)
                            .hasNumberOfObservationsWithNameEqualTo(
                                DefaultHookObservationConvention.NAME, 0)
                            .hasNumberOfObservationsWithNameEqualTo(
                                DefaultLeaderOnlyObservationConvention.NAME, 0);
                      });
            });
  }

  /** {@link #registry()} with global conventions that would rename both observations. */
  private static TestObservationRegistry registryWithGlobalConventions() {
    TestObservationRegistry registry = registry();
    registry
        .observationConfig()
        .observationConvention(
            new io.micrometer.observation.GlobalObservationConvention<HookObservationContext>() {
              @Override
              public boolean supportsContext(Observation.Context context) {
                return context instanceof HookObservationContext;
              }

              @Override
              public String getName() {
                return "global.hook";
              }
            })
        .observationConvention(
            new io.micrometer.observation.GlobalObservationConvention<
                LeaderOnlyObservationContext>() {
              @Override
              public boolean supportsContext(Observation.Context context) {
                return context instanceof LeaderOnlyObservationContext;
              }

              @Override
              public String getName() {
                return "global.job";
              }
            });
    return registry;
  }

  /** A test registry whose scopes put the observation in the MDC, as a tracer does. */
  private static TestObservationRegistry registry() {
    TestObservationRegistry registry = TestObservationRegistry.create();
    registry.observationConfig().observationHandler(new MdcHandler());
    return registry;
  }

  /** Puts the observation in scope (name, hook) in the MDC, as a tracer puts its ids. */
  static final class MdcHandler implements ObservationHandler<Observation.Context> {

    @Override
    public void onScopeOpened(Observation.Context context) {
      KeyValue hook = context.getLowCardinalityKeyValue("conch.hook");
      MDC.put("observation", context.getName() + ((hook != null) ? " " + hook.getValue() : ""));
    }

    @Override
    public void onScopeClosed(Observation.Context context) {
      MDC.remove("observation");
    }

    @Override
    public boolean supportsContext(Observation.Context context) {
      return true;
    }
  }

  record Seen(@Nullable Observation observation, @Nullable String mdc) {}

  static class Hooks {

    final List<Seen> seen = new CopyOnWriteArrayList<>();

    private final TestObservationRegistry registry;

    Hooks(TestObservationRegistry registry) {
      this.registry = registry;
    }

    @OnLeadership
    void up(Leadership leadership) {
      this.seen.add(new Seen(this.registry.getCurrentObservation(), MDC.get("observation")));
    }

    @OnLeadership(on = Transition.LOST)
    void down(LossReason reason) {
      this.seen.add(new Seen(this.registry.getCurrentObservation(), MDC.get("observation")));
    }
  }

  static class Job {

    private final TestObservationRegistry registry;

    Job(TestObservationRegistry registry) {
      this.registry = registry;
    }

    @LeaderOnly
    public @Nullable String run() {
      Observation current = this.registry.getCurrentObservation();
      return (current != null) ? current.getContextView().getName() : null;
    }

    @LeaderOnly
    public void fail() {
      throw new IllegalStateException("not today");
    }
  }

  static class Failing {

    @OnLeadership
    void up() {
      throw new IllegalStateException("not today");
    }
  }
}
