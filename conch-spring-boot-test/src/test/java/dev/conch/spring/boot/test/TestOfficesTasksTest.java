package dev.conch.spring.boot.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.conch.spring.LeaderOnlyTasks;
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
    assertThat(this.offices.runs("export")).isZero();

    this.export.task().run();
    assertThat(this.export.calls()).hasValue(1);
    assertThat(this.offices.runs("export")).isEqualTo(1);
    assertThat(this.offices.runs("billing")).isEqualTo(1);

    this.offices.electOther("billing", "node-b");
    this.export.task().run();
    assertThat(this.export.calls()).hasValue(1);
    assertThat(this.offices.skips("export")).isEqualTo(1);
    assertThat(this.offices.skips("billing")).isEqualTo(1);

    this.offices.grant("billing");
    this.export.task().run();
    this.offices.awaitRuns("export", 2);
  }

  @Test
  void anUnknownTaskIsRefusedWithTheTasksThereAre() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> this.offices.runs("import"))
        .withMessageContaining("'import'")
        .withMessageContaining("[billing]")
        .withMessageContaining("leader-only tasks [export]");
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

    Export(LeaderOnlyTasks leaderOnly) {
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
