package dev.conch.spring.boot.autoconfigure.leaderonly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.Leadership;
import dev.conch.local.LocalOffices;
import dev.conch.spring.Elections;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.boot.autoconfigure.observation.ConchObservationAutoConfiguration;
import dev.conch.spring.leaderonly.CurrentLeadership;
import dev.conch.spring.leaderonly.LeaderOnlyAnnotationBeanPostProcessor;
import dev.conch.spring.leaderonly.LeaderOnlyTasks;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * {@link LeaderOnlyTasks} on the in-memory offices, where a test decides who leads: a task runs on
 * the leader with its term and is skipped (and counted) elsewhere, as a {@code @LeaderOnly} method;
 * a scheduler over a real {@link ThreadPoolTaskScheduler} guards each firing; misuse and unknown
 * offices are refused. Two instances against real etcd are in {@link LeaderOnlyTasksEtcdTest}.
 */
@Timeout(60)
class LeaderOnlyTasksTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private final LocalOffices offices = new LocalOffices();

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ObservationAutoConfiguration.class,
                  MetricsAutoConfiguration.class,
                  ConchObservationAutoConfiguration.class,
                  ConchAutoConfiguration.class,
                  LeaderOnlyAutoConfiguration.class))
          .withPropertyValues(
              "conch.standalone=true",
              "spring.application.name=app",
              "conch.offices.billing.stop-timeout=1s")
          .withBean(LocalOffices.class, () -> this.offices)
          .withBean(MeterRegistry.class, SimpleMeterRegistry::new);

  @Test
  void taskRunsOnlyWhileThisInstanceLeadsWithItsTermAndSkipsAreCounted() throws Exception {
    try (Election other = otherCandidate("billing")) {
      this.contextRunner.run(
          context -> {
            LeaderOnlyTasks leaderOnly = context.getBean(LeaderOnlyTasks.class);
            Election billing = context.getBean(Elections.class).get("billing");
            await().atMost(WAIT).until(() -> this.offices.leader("billing").isPresent());
            List<Leadership> runs = new CopyOnWriteArrayList<>();

            assertThat(leaderOnly.run("billing", "invoices", () -> runs.add(current()))).isFalse();
            assertThat(runs).isEmpty();

            other.resign();
            assertThat(billing.awaitLeadership(WAIT)).isTrue();
            assertThat(leaderOnly.run("billing", "invoices", () -> runs.add(current()))).isTrue();
            assertThat(runs)
                .singleElement()
                .satisfies(
                    term -> {
                      assertThat(term.office()).isEqualTo("billing");
                      assertThat(term.token()).isEqualTo(billing.token().orElseThrow());
                    });
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(timed(meters, "billing", "invoices", "SKIPPED")).isEqualTo(1);
            assertThat(timed(meters, "billing", "invoices", "SUCCESS")).isEqualTo(1);
          });
    }
  }

  @Test
  void callReturnsTheResultOnTheLeaderAndNothingOnAFollower() throws Exception {
    this.contextRunner.run(
        context -> {
          LeaderOnlyTasks leaderOnly = context.getBean(LeaderOnlyTasks.class);
          Election app = context.getBean(Election.class);
          assertThat(app.awaitLeadership(WAIT)).isTrue();
          // The empty office is the default office, as in @LeaderOnly.
          assertThat(leaderOnly.call("", "report", () -> current().office())).contains("app");

          try (Election other = otherCandidateAfter(app, "app")) {
            AtomicInteger calls = new AtomicInteger();
            assertThat(leaderOnly.call("app", "report", calls::incrementAndGet)).isEmpty();
            assertThat(calls).hasValue(0);
          }
          MeterRegistry meters = context.getBean(MeterRegistry.class);
          assertThat(timed(meters, "app", "report", "SUCCESS")).isEqualTo(1);
          assertThat(timed(meters, "app", "report", "SKIPPED")).isEqualTo(1);
        });
  }

  @Test
  void taskThatThrowsIsCountedAsAnErrorAndTheExceptionReachesTheCaller() {
    this.contextRunner.run(
        context -> {
          LeaderOnlyTasks leaderOnly = context.getBean(LeaderOnlyTasks.class);
          assertThat(context.getBean(Election.class).awaitLeadership(WAIT)).isTrue();
          assertThatIllegalArgumentException()
              .isThrownBy(
                  () ->
                      leaderOnly.run(
                          "app",
                          "failing",
                          () -> {
                            throw new IllegalArgumentException("boom");
                          }))
              .withMessage("boom");
          Timer timer =
              context
                  .getBean(MeterRegistry.class)
                  .find("conch.leaderonly")
                  .tags("code.function", "failing", "outcome", "ERROR")
                  .tag("exception", "IllegalArgumentException")
                  .timer();
          assertThat(timer).isNotNull();
          assertThat(timer.count()).isEqualTo(1);
        });
  }

  @Test
  void taskThatReturnsWorkStillInProgressIsRefused() {
    this.contextRunner.run(
        context -> {
          LeaderOnlyTasks leaderOnly = context.getBean(LeaderOnlyTasks.class);
          assertThat(context.getBean(Election.class).awaitLeadership(WAIT)).isTrue();
          assertThatIllegalArgumentException()
              .isThrownBy(
                  () ->
                      leaderOnly.call(
                          "app", "async", () -> CompletableFuture.supplyAsync(() -> "later")))
              .withMessageContaining("Leader-only task 'async' returned a")
              .withMessageContaining("CompletableFuture")
              .withMessageContaining("possibly after the term ended")
              .withMessageContaining("Wait for it inside the task");
          assertThat(timed(context.getBean(MeterRegistry.class), "app", "async", "ERROR"))
              .isEqualTo(1);
        });
  }

  @Test
  void unknownOfficeIsRefusedWithTheOfficesThereAre() {
    this.contextRunner.run(
        context -> {
          LeaderOnlyTasks leaderOnly = context.getBean(LeaderOnlyTasks.class);
          AtomicInteger calls = new AtomicInteger();
          assertThatIllegalArgumentException()
              .isThrownBy(() -> leaderOnly.run("invoices", "send", calls::incrementAndGet))
              .withMessageContaining("'send' needs office 'invoices'")
              .withMessageContaining("does not campaign for")
              .withMessageContaining("[app, billing]")
              .withMessageContaining("conch.offices.invoices.*");
          assertThat(calls).hasValue(0);
          assertThat(context.getBean(MeterRegistry.class).find("conch.leaderonly").timers())
              .isEmpty();
        });
  }

  @Test
  void blankNameIsRefused() {
    this.contextRunner.run(
        context ->
            assertThatIllegalArgumentException()
                .isThrownBy(() -> context.getBean(LeaderOnlyTasks.class).task("app", " ", () -> {}))
                .withMessageContaining("needs a name")
                .withMessageContaining("got ' '"));
  }

  @Test
  void schedulerRunsEachFiringOnlyWhileThisInstanceLeads() throws Exception {
    ThreadPoolTaskScheduler threads = new ThreadPoolTaskScheduler();
    threads.setThreadNamePrefix("tasks-test-");
    threads.initialize();
    try (Election other = otherCandidate("billing")) {
      this.contextRunner.run(
          context -> {
            LeaderOnlyTasks leaderOnly = context.getBean(LeaderOnlyTasks.class);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            Election billing = context.getBean(Elections.class).get("billing");
            await().atMost(WAIT).until(() -> this.offices.leader("billing").isPresent());
            TaskScheduler scheduler = leaderOnly.scheduler(threads, "billing", "reminders");
            List<String> runs = new CopyOnWriteArrayList<>();
            ScheduledFuture<?> future =
                scheduler.scheduleAtFixedRate(
                    () -> runs.add(Thread.currentThread().getName() + " " + current().token()),
                    Duration.ofMillis(20));
            try {
              await()
                  .atMost(WAIT)
                  .until(() -> timed(meters, "billing", "reminders", "SKIPPED") >= 3);
              assertThat(runs).isEmpty();

              other.resign();
              assertThat(billing.awaitLeadership(WAIT)).isTrue();
              long token = billing.token().orElseThrow();
              await().atMost(WAIT).until(() -> runs.size() >= 3);
              assertThat(runs).allMatch(run -> run.matches("tasks-test-\\d+ " + token));
              assertThat(timed(meters, "billing", "reminders", "SUCCESS"))
                  .isGreaterThanOrEqualTo(3);
            } finally {
              future.cancel(false);
            }
          });
    } finally {
      threads.destroy();
    }
  }

  @Test
  void applicationsOwnBeanReplacesTheStarters() {
    this.contextRunner
        .withUserConfiguration(MyTasks.class)
        .run(
            context -> {
              assertThat(context).hasSingleBean(LeaderOnlyTasks.class);
              assertThat(context.getBeanNamesForType(LeaderOnlyTasks.class))
                  .containsExactly("myTasks");
            });
  }

  private static Leadership current() {
    return CurrentLeadership.get();
  }

  private Election otherCandidate(String office) throws InterruptedException {
    Election other =
        this.offices.election(ElectionOptions.builder(office).candidateId("other").build());
    other.start();
    assertThat(other.awaitLeadership(WAIT)).isTrue();
    return other;
  }

  /** Another candidate that leads {@code office} once this instance's term ended. */
  private Election otherCandidateAfter(Election mine, String office) {
    Election other =
        this.offices.election(ElectionOptions.builder(office).candidateId("other").build());
    other.start();
    await().atMost(WAIT).until(() -> this.offices.grant(office, "other"));
    await().atMost(WAIT).until(() -> other.isLeader() && mine.leadership().isEmpty());
    return other;
  }

  /** Calls counted by the timer Boot's meter handler makes of each call's observation. */
  private static double timed(MeterRegistry meters, String office, String task, String outcome) {
    Timer timer =
        meters
            .find("conch.leaderonly")
            .tags("conch.office", office, "code.function", task, "outcome", outcome)
            .tag("code.namespace", "none")
            .timer();
    return (timer != null) ? timer.count() : 0;
  }

  @Configuration(proxyBeanMethods = false)
  static class MyTasks {

    @Bean
    LeaderOnlyTasks myTasks(LeaderOnlyAnnotationBeanPostProcessor methods) {
      return new LeaderOnlyTasks(methods);
    }
  }
}
