package dev.conch.spring.boot.autoconfigure.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.local.LocalOffices;
import dev.conch.spring.Elections;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.SmartLifecycle;

/**
 * Two lifecycle beans on one office whose first stop blocks until it is interrupted: when the
 * election interrupts the lose hook (it gave the hook up, or a successor may lead), the second bean
 * is stopped all the same, and the bean that did not confirm its stop in time is named.
 */
@Timeout(60)
@ExtendWith(OutputCaptureExtension.class)
class InterruptedStopTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private final LocalOffices offices = new LocalOffices();

  private final Election successor =
      this.offices.election(ElectionOptions.builder("orders").candidateId("successor").build());

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ConchAutoConfiguration.class, LeaderLifecycleAutoConfiguration.class))
          .withBean(LocalOffices.class, () -> this.offices)
          .withBean("container", Container.class, () -> new Container(0))
          .withPropertyValues("conch.standalone=true", "spring.application.name=app");

  /** 'draining' is stopped before 'container': it has the higher phase. */
  private final ApplicationContextRunner withDraining =
      this.contextRunner
          .withBean("draining", Draining.class)
          .withPropertyValues(
              "conch.offices.orders.stop-timeout=100ms",
              "conch.offices.orders.lifecycle-beans=draining,container");

  @AfterEach
  void closeSuccessor() {
    this.successor.close();
  }

  @Test
  void aLossWhoseStopIsGivenUpAtTheHookTimeoutStillStopsEveryBean(CapturedOutput output) {
    this.withDraining
        .withPropertyValues("conch.offices.orders.hook-timeout=1s")
        .run(
            context -> {
              Draining draining = context.getBean(Draining.class);
              Container container = context.getBean(Container.class);
              await().atMost(WAIT).until(container::isRunning);
              this.successor.start();
              // The key is deleted: the successor leads; the lose hook is given up after 1 s.
              this.offices.revoke("orders");
              assertThat(this.successor.awaitLeadership(WAIT)).isTrue();
              await().atMost(WAIT).until(() -> container.history.contains("stop"));
              assertThat(draining.interrupted.getCount()).isZero();
              assertThat(container.isRunning()).isFalse();
              assertThat(container.history).containsExactly("start", "stop");
              assertThat(output.getOut())
                  .contains("'draining' did not stop within the stop timeout of office 'orders'");
            });
  }

  @Test
  void aKeyDeletedWhileResigningStillStopsEveryBean(CapturedOutput output) {
    this.withDraining.run(
        context -> {
          Draining draining = context.getBean(Draining.class);
          Container container = context.getBean(Container.class);
          Election election = context.getBean(Elections.class).get("orders");
          await().atMost(WAIT).until(container::isRunning);
          election.resignAsync();
          // A resign gives the lose hook its whole hook timeout (30 s): the drain waits on.
          assertThat(draining.stopping.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
          this.successor.start();
          this.offices.revoke("orders");
          // A successor may lead now: the lose hook is interrupted, and every bean stops.
          await().atMost(WAIT).until(() -> container.history.contains("stop"));
          assertThat(draining.interrupted.getCount()).isZero();
          assertThat(container.isRunning()).isFalse();
          assertThat(this.successor.awaitLeadership(WAIT)).isTrue();
          assertThat(output.getOut()).contains("KEY_DELETED while the lose hooks of a RESIGNED");
        });
  }

  @Test
  void aStopInterruptedWhileAwaitingItsCallbackIsNamedAndTheRestAreNotWaitedFor(
      CapturedOutput output) {
    this.contextRunner
        .withBean("async", Unconfirmed.class)
        .withPropertyValues(
            "conch.offices.orders.stop-timeout=5s",
            "conch.offices.orders.lifecycle-beans=async,container")
        .run(
            context -> {
              Unconfirmed async = context.getBean(Unconfirmed.class);
              Container container = context.getBean(Container.class);
              Election election = context.getBean(Elections.class).get("orders");
              await().atMost(WAIT).until(container::isRunning);
              election.resignAsync();
              // The hook awaits the callback, for up to the stop timeout (5 s).
              assertThat(async.stopping.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
              this.successor.start();
              this.offices.revoke("orders");
              await().atMost(WAIT).until(() -> container.history.contains("stop"));
              assertThat(this.successor.awaitLeadership(WAIT)).isTrue();
              await()
                  .atMost(WAIT)
                  .until(() -> output.getOut().contains("that did not confirm their stop"));
              assertThat(output.getOut())
                  .contains(
                      "Beans of office 'orders' that did not confirm their stop (interrupted:"
                          + " stop() was called on each, not waited for): 'async'; their work may"
                          + " overlap the next leader's");
            });
  }

  /** Stops asynchronously, and never calls back: its drain never ends. */
  static class Unconfirmed extends Draining {

    @Override
    public void stop(Runnable callback) {
      this.stopping.countDown();
    }
  }

  /**
   * Drains its work on stop for as long as it takes (here: until interrupted, at most 20 s), then
   * gives up, keeping the interrupt, as a well-behaved blocking method does.
   */
  static class Draining implements SmartLifecycle {

    final CountDownLatch stopping = new CountDownLatch(1);

    final CountDownLatch interrupted = new CountDownLatch(1);

    private final CountDownLatch drained = new CountDownLatch(1);

    private volatile boolean running;

    private volatile boolean autoStartup = true;

    @Override
    public void start() {
      this.running = true;
    }

    @Override
    public void stop() {
      this.stopping.countDown();
      try {
        this.drained.await(20, TimeUnit.SECONDS);
      } catch (InterruptedException ex) {
        this.interrupted.countDown();
        Thread.currentThread().interrupt();
      }
      this.running = false;
    }

    @Override
    public boolean isRunning() {
      return this.running;
    }

    @Override
    public boolean isAutoStartup() {
      return this.autoStartup;
    }

    public void setAutoStartup(boolean autoStartup) {
      this.autoStartup = autoStartup;
    }
  }
}
