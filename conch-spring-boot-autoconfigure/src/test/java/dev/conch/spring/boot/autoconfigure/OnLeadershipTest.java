package dev.conch.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionEvent;
import dev.conch.Leadership;
import dev.conch.LossReason;
import dev.conch.spring.Elections;
import dev.conch.spring.LeadershipLostEvent;
import dev.conch.spring.OnLeadership;
import dev.conch.spring.OnLeadership.Transition;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.core.annotation.Order;

/**
 * {@link OnLeadership @OnLeadership} methods, in standalone mode: which methods run, in what order,
 * with what arguments, and what a failing one does. Real etcd is in {@link ConchEtcdTest}.
 */
class OnLeadershipTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(ConchAutoConfiguration.class))
          .withPropertyValues("conch.standalone=true", "spring.application.name=app")
          .withBean(Recorder.class);

  @Test
  void methodsRunInOrderAcrossBeansAndWithinABeanOnBothTransitions() {
    this.contextRunner
        .withUserConfiguration(OrderedHooks.class)
        .run(
            context -> {
              Recorder recorder = context.getBean(Recorder.class);
              await().atMost(WAIT).until(() -> recorder.lines().size() >= 4);
              long token = context.getBean(Election.class).token().orElseThrow();
              context.close();
              assertThat(recorder.lines())
                  .containsExactly(
                      "hook acquired a " + token,
                      "hook acquired second " + token,
                      "hook acquired c",
                      "event acquired app " + token,
                      "hook lost a " + token + " RESIGNED",
                      "hook lost second " + token,
                      "hook lost c RESIGNED",
                      "event lost app " + token + " RESIGNED");
            });
  }

  @Test
  void failingAcquireMethodMakesTheInstanceStepDownAndCampaignAgain() {
    this.contextRunner
        .withUserConfiguration(FailingOnce.class)
        .run(
            context -> {
              Election election = context.getBean(Election.class);
              assertThat(election.awaitLeadership(WAIT)).isTrue();
              long token = election.token().orElseThrow();
              Recorder recorder = context.getBean(Recorder.class);
              await().atMost(WAIT).until(() -> recorder.lines().size() >= 5);
              assertThat(recorder.lines())
                  .hasSize(5)
                  .startsWith("hook acquired failing", "hook lost cleanup ACQUIRE_FAILED")
                  .contains("hook acquired failing", "event acquired app " + token)
                  .anyMatch(line -> line.matches("event lost app \\d+ ACQUIRE_FAILED"));
              assertThat(recorder.lines().get(2)).startsWith("event lost app ");
              long failedToken = Long.parseLong(recorder.lines().get(2).split(" ")[3]);
              assertThat(token).isGreaterThan(failedToken);
            });
  }

  @Test
  void officeNamedOnlyByAnAnnotationIsCampaignedFor() {
    this.contextRunner
        .withUserConfiguration(BillingHooks.class)
        .withPropertyValues("billing.office=billing")
        .run(
            context -> {
              Elections elections = context.getBean(Elections.class);
              assertThat(elections.offices()).containsExactly("app", "billing");
              assertThat(elections.get("billing").awaitLeadership(WAIT)).isTrue();
              Recorder recorder = context.getBean(Recorder.class);
              await()
                  .atMost(WAIT)
                  .until(
                      () ->
                          recorder.lines().stream()
                              .anyMatch(line -> line.startsWith("event acquired billing ")));
              assertThat(recorder.lines()).contains("hook acquired billing");
            });
  }

  @Test
  void oneEventFamilyIsPublishedNotTheCoresRawEvents() {
    this.contextRunner
        .withUserConfiguration(RawEvents.class)
        .run(
            context -> {
              Election election = context.getBean(Election.class);
              assertThat(election.awaitLeadership(WAIT)).isTrue();
              long token = election.token().orElseThrow();
              election.resign();
              Recorder recorder = context.getBean(Recorder.class);
              // The lost event comes after every event of the term on the one event thread: had
              // the raw Leading been published, it would be recorded by now.
              await().atMost(WAIT).until(() -> recorder.lines().contains("lost " + token));
              assertThat(recorder.lines()).noneMatch(line -> line.startsWith("raw "));
            });
  }

  @Test
  void methodTakingSomethingElseFailsStartup() {
    this.contextRunner
        .withUserConfiguration(WrongParameter.class)
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("may take a Leadership and, on LOST, a LossReason"));
  }

  @Configuration(proxyBeanMethods = false)
  static class OrderedHooks {

    @Bean
    Second second(Recorder recorder) {
      return new Second(recorder);
    }

    @Bean
    Both both(Recorder recorder) {
      return new Both(recorder);
    }
  }

  @Order(2)
  record Second(Recorder recorder) {

    @OnLeadership
    void start(Leadership leadership) {
      this.recorder.add("hook acquired second " + leadership.token());
    }

    @OnLeadership(on = Transition.LOST)
    void stop(Leadership leadership) {
      this.recorder.add("hook lost second " + leadership.token());
    }
  }

  record Both(Recorder recorder) {

    @OnLeadership
    @Order(3)
    void c() {
      this.recorder.add("hook acquired c");
    }

    @OnLeadership
    @Order(1)
    void a(Leadership leadership) {
      this.recorder.add("hook acquired a " + leadership.token());
    }

    @OnLeadership(on = Transition.LOST)
    @Order(3)
    void cLost(LossReason reason) {
      this.recorder.add("hook lost c " + reason);
    }

    @OnLeadership(on = Transition.LOST)
    @Order(1)
    void aLost(LossReason reason, Leadership leadership) {
      this.recorder.add("hook lost a " + leadership.token() + " " + reason);
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class FailingOnce {

    private final AtomicInteger calls = new AtomicInteger();

    @Bean
    Object failingOnce(Recorder recorder) {
      return new Object() {
        @OnLeadership
        void failing() {
          recorder.add("hook acquired failing");
          if (FailingOnce.this.calls.incrementAndGet() == 1) {
            throw new IllegalStateException("not ready yet");
          }
        }

        @OnLeadership(on = Transition.LOST)
        void cleanup(LossReason reason) {
          recorder.add("hook lost cleanup " + reason);
        }
      };
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class BillingHooks {

    @Bean
    Object billingHooks(Recorder recorder) {
      return new Object() {
        @OnLeadership(office = "${billing.office}")
        void start() {
          recorder.add("hook acquired billing");
        }
      };
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class RawEvents {

    @Bean
    Object rawEvents(Recorder recorder) {
      return new Object() {
        @EventListener
        void on(ElectionEvent event) {
          recorder.add("raw " + event);
        }

        @EventListener
        void on(LeadershipLostEvent event) {
          recorder.add("lost " + event.getToken());
        }
      };
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class WrongParameter {

    @Bean
    Object wrongParameter() {
      return new Object() {
        @OnLeadership
        void start(String office) {}
      };
    }
  }
}
