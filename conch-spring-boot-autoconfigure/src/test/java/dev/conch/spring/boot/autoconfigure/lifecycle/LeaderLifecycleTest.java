package dev.conch.spring.boot.autoconfigure.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.local.LocalOffices;
import dev.conch.spring.Elections;
import dev.conch.spring.LeaderLifecycle;
import dev.conch.spring.OnLeadership;
import dev.conch.spring.OnLeadership.Transition;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.Lifecycle;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Lifecycle beans bound to an office, on the in-memory offices where the test decides who leads:
 * not started with the context, started on a win, stopped on every kind of loss, bound by
 * annotation or by property, and refused when they cannot be held back.
 */
@Timeout(60)
@ExtendWith(OutputCaptureExtension.class)
class LeaderLifecycleTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private final LocalOffices offices = new LocalOffices();

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ConchAutoConfiguration.class, LeaderLifecycleAutoConfiguration.class))
          .withPropertyValues("conch.standalone=true", "spring.application.name=app")
          .withBean(LocalOffices.class, () -> this.offices);

  @Test
  void boundBeanWaitsForLeadershipAndStopsOnEveryLoss() throws Exception {
    try (Election other = otherCandidate("orders")) {
      this.contextRunner
          .withUserConfiguration(AnnotatedContainer.class)
          .run(
              context -> {
                Container container = context.getBean("ordersContainer", Container.class);
                Election election = context.getBean(Elections.class).get("orders");
                await().atMost(WAIT).until(() -> election.state() == dev.conch.State.FOLLOWING);
                assertThat(container.isRunning()).isFalse();
                assertThat(container.isAutoStartup()).isFalse();
                other.resign();
                await().atMost(WAIT).until(container::isRunning);
                assertThat(election.isLeader()).isTrue();
                this.offices.revoke("orders");
                // It stops on the loss and starts again with the next term.
                await()
                    .atMost(WAIT)
                    .until(() -> container.history.size() >= 3 && container.isRunning());
                assertThat(container.history).containsExactly("start", "stop", "start");
                this.offices.expire("orders");
                await().atMost(WAIT).until(() -> container.history.size() >= 5);
                assertThat(container.history).endsWith("stop", "start");
              });
    }
  }

  @Test
  void beanBoundByPropertyFollowsItsOffice() {
    this.contextRunner
        .withBean("plainContainer", Container.class)
        .withPropertyValues("conch.offices.billing.lifecycle-beans=plainContainer")
        .run(
            context -> {
              Container container = context.getBean(Container.class);
              await().atMost(WAIT).until(container::isRunning);
              assertThat(this.offices.leader("billing")).isPresent();
              context.getBean(Elections.class).get("billing").resign();
              assertThat(container.isRunning()).isFalse();
              assertThat(container.history).containsExactly("start", "stop");
            });
  }

  @Test
  void beansStartAfterTheHooksOfTheOfficeAndStopBeforeThemInPhaseOrder() {
    this.contextRunner
        .withUserConfiguration(OrderedContainers.class)
        .run(
            context -> {
              List<String> order = context.getBean(OrderedContainers.class).order;
              await().atMost(WAIT).until(() -> order.size() >= 3);
              context.close();
              assertThat(order)
                  .containsExactly(
                      "hook acquired",
                      "start early",
                      "start late",
                      "stop late",
                      "stop early",
                      "hook lost");
            });
  }

  @Test
  void stopThatOverrunsTheStopTimeoutIsLoggedAsAPossibleOverlap(CapturedOutput output) {
    this.contextRunner
        .withBean("slowContainer", Container.class)
        .withPropertyValues(
            "conch.offices.billing.lifecycle-beans=slowContainer",
            "conch.offices.billing.stop-timeout=100ms")
        .run(
            context -> {
              Container container = context.getBean(Container.class);
              await().atMost(WAIT).until(container::isRunning);
              container.stopTakes(Duration.ofMillis(600));
              this.offices.revoke("billing");
              await()
                  .atMost(WAIT)
                  .until(() -> output.getOut().contains("did not stop within the stop timeout"));
              assertThat(output.getOut())
                  .contains(
                      "'slowContainer' did not stop within the stop timeout of office 'billing'"
                          + " (100ms): possible overlap");
            });
  }

  @Test
  void beanThatCannotBeHeldBackFailsStartup() {
    this.contextRunner
        .withBean("eager", SmartLifecycle.class, Eager::new)
        .withPropertyValues("conch.offices.billing.lifecycle-beans=eager")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("conch.offices.billing.lifecycle-beans")
                    .hasMessageContaining("has no setAutoStartup(boolean)"));
  }

  @Test
  void unknownOrNonLifecycleBeanFailsStartup() {
    this.contextRunner
        .withPropertyValues("conch.offices.billing.lifecycle-beans=nothing")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .hasStackTraceContaining(
                        "invalid conch.offices.billing.lifecycle-beans 'nothing'")
                    .hasStackTraceContaining("there is no such bean"));
    this.contextRunner
        .withBean("text", String.class, () -> "not a lifecycle")
        .withPropertyValues("conch.offices.billing.lifecycle-beans=text")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .hasStackTraceContaining("the name of a Lifecycle"));
  }

  private Election otherCandidate(String office) throws InterruptedException {
    Election other =
        this.offices.election(ElectionOptions.builder(office).candidateId("other").build());
    other.start();
    assertThat(other.awaitLeadership(WAIT)).isTrue();
    return other;
  }

  @Configuration(proxyBeanMethods = false)
  static class AnnotatedContainer {

    @Bean
    @LeaderLifecycle("orders")
    Container ordersContainer() {
      return new Container();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class OrderedContainers {

    final List<String> order = new CopyOnWriteArrayList<>();

    @Bean
    @LeaderLifecycle
    Lifecycle late() {
      return new Recording(this.order, "late", 10);
    }

    @Bean
    @LeaderLifecycle
    Lifecycle early() {
      return new Recording(this.order, "early", -10);
    }

    @OnLeadership
    void acquired() {
      this.order.add("hook acquired");
    }

    @OnLeadership(on = Transition.LOST)
    void lost() {
      this.order.add("hook lost");
    }
  }

  /** Records into a shared list; not started with the context (no auto-startup). */
  static class Recording implements SmartLifecycle {

    private final List<String> order;

    private final String name;

    private final int phase;

    private volatile boolean running;

    Recording(List<String> order, String name, int phase) {
      this.order = order;
      this.name = name;
      this.phase = phase;
    }

    @Override
    public void start() {
      this.running = true;
      this.order.add("start " + this.name);
    }

    @Override
    public void stop() {
      this.running = false;
      this.order.add("stop " + this.name);
    }

    @Override
    public boolean isRunning() {
      return this.running;
    }

    @Override
    public boolean isAutoStartup() {
      return false;
    }

    @Override
    public int getPhase() {
      return this.phase;
    }
  }

  /** Starts with the context and cannot be told otherwise. */
  static class Eager implements SmartLifecycle {

    private volatile boolean running;

    @Override
    public void start() {
      this.running = true;
    }

    @Override
    public void stop() {
      this.running = false;
    }

    @Override
    public boolean isRunning() {
      return this.running;
    }
  }
}
