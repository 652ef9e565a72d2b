package dev.conch.spring.boot.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.conch.spring.leaderonly.LeaderOnlyTasks;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;

/**
 * {@link TestOffices} counts the {@link LeaderOnlyTasks} tasks by the name they were given, as it
 * counts {@code @LeaderOnly} methods by {@code Class.method()}, and adds them to their office's.
 */
@SpringBootTest(
    properties = {"spring.application.name=billing", "conch.candidate.id=me"},
    webEnvironment = SpringBootTest.WebEnvironment.NONE)
@AutoConfigureTestOffices
@Timeout(60)
class TestOfficesTasksTest {

  @Autowired TestOffices offices;

  @Autowired Export export;

  @Test
  void aTaskIsCountedByItsNameOnceGivenEvenBeforeItRan() {
    assertThat(this.offices.taskRuns("export")).isZero();

    this.export.task().run();
    assertThat(this.export.calls()).hasValue(1);
    assertThat(this.offices.taskRuns("export")).isEqualTo(1);
    assertThat(this.offices.officeRuns("billing")).isEqualTo(1);

    this.offices.electOther("billing", "node-b");
    this.export.task().run();
    assertThat(this.export.calls()).hasValue(1);
    assertThat(this.offices.taskSkips("export")).isEqualTo(1);
    assertThat(this.offices.officeSkips("billing")).isEqualTo(1);

    this.offices.grant("billing");
    this.export.task().run();
    this.offices.awaitTaskRuns("export", 2);
  }

  @Test
  void awaitRunsReturnsOnceTheRunHasEndedNotWhenItStarts() throws Exception {
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    CompletableFuture<Boolean> call =
        CompletableFuture.supplyAsync(
            () ->
                this.export.leaderOnly.run(
                    "billing",
                    "slow-export",
                    () -> {
                      running.countDown();
                      try {
                        assertThat(finish.await(30, TimeUnit.SECONDS)).isTrue();
                      } catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                      }
                    }));
    assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
    try {
      // Started, not ended: a test that checks the run's effect after awaitTaskRuns finds it done.
      assertThat(this.offices.taskRuns("slow-export")).isZero();
    } finally {
      finish.countDown();
    }
    this.offices.awaitTaskRuns("slow-export", 1);
    assertThat(call.get(10, TimeUnit.SECONDS)).isTrue();
    assertThat(this.offices.taskRuns("slow-export")).isEqualTo(1);
  }

  @Test
  void anUnknownTaskIsRefusedWithTheTasksThereAre() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> this.offices.taskRuns("import"))
        .withMessageContaining("'import'")
        .withMessageContaining("[billing]")
        .withMessageContaining("leader-only tasks [export");
  }

  @SpringBootConfiguration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class App {

    @Bean
    Export export(LeaderOnlyTasks leaderOnly) {
      return new Export(leaderOnly);
    }
  }

  /** Builds its task when the context starts, as an application hands one to an executor. */
  static class Export {

    private final AtomicInteger calls = new AtomicInteger();

    private final Runnable task;

    final LeaderOnlyTasks leaderOnly;

    Export(LeaderOnlyTasks leaderOnly) {
      this.leaderOnly = leaderOnly;
      this.task = leaderOnly.task("billing", "export", this.calls::incrementAndGet);
    }

    Runnable task() {
      return this.task;
    }

    AtomicInteger calls() {
      return this.calls;
    }
  }
}
