package dev.conch.spring.boot.autoconfigure;

import static dev.conch.spring.boot.autoconfigure.ConchTestSupport.freshOffice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Leadership;
import dev.conch.spring.LeadershipAcquiredEvent;
import dev.conch.spring.OnLeadership;
import dev.conch.test.EtcdExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.event.EventListener;
import org.springframework.core.task.TaskExecutor;

/**
 * The threads {@code @OnLeadership} methods and the listeners of leadership events run on, against
 * a real etcd member: conch's own, named after the office ({@code conch-hooks-<office>}, {@code
 * conch-events-<office>}), virtual hook threads only where Java has them and Boot's threading asks
 * for them, no executor bean beside Boot's, and the core's interrupt of an overrunning hook reaches
 * the hook on its thread.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConchThreadsTest {

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private static final Duration WAIT = Duration.ofSeconds(20);

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(ConchAutoConfiguration.class))
          .withBean(Threads.class)
          .withPropertyValues(
              "conch.etcd.endpoints=" + etcd.cluster().endpoints(),
              "conch.office=" + freshOffice("threads"),
              "conch.ttl=10s",
              "conch.etcd.timeout=2s");

  @Test
  void hooksAndEventListenersRunOnConchsOwnPlatformThreadsNamedAfterTheOffice() {
    this.contextRunner.run(
        context -> {
          Threads threads = context.getBean(Threads.class);
          await().atMost(WAIT).until(() -> threads.seen().size() >= 2);
          assertThat(context).doesNotHaveBean(Executor.class);
          assertThat(threads.seen())
              .extracting(Seen::what)
              .containsExactly("hook acquired", "event acquired");
          assertThat(threads.seen().get(0).thread()).startsWith("conch-hooks-threads-");
          assertThat(threads.seen().get(1).thread()).startsWith("conch-events-threads-");
          assertThat(threads.seen()).noneMatch(Seen::virtual);
        });
  }

  @Test
  @EnabledForJreRange(max = JRE.JAVA_20)
  void virtualThreadsRequestedOnJava17StayPlatformThreads() {
    this.contextRunner
        .withPropertyValues("spring.threads.virtual.enabled=true")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              Threads threads = context.getBean(Threads.class);
              await().atMost(WAIT).until(() -> threads.seen().size() >= 2);
              assertThat(threads.seen()).noneMatch(Seen::virtual);
            });
  }

  @Test
  @EnabledForJreRange(min = JRE.JAVA_21)
  void virtualThreadsRequestedOnJava21RunHooksOnVirtualThreads() {
    // The events stay on the core's event threads, which keep each election's events in order.
    this.contextRunner
        .withPropertyValues("spring.threads.virtual.enabled=true")
        .run(
            context -> {
              Threads threads = context.getBean(Threads.class);
              await().atMost(WAIT).until(() -> threads.seen().size() >= 2);
              Seen hook = threads.seen().get(0);
              assertThat(hook.thread()).startsWith("conch-hooks-threads-");
              assertThat(hook.virtual()).isTrue();
            });
  }

  @Test
  void bootsApplicationTaskExecutorStaysTheApplicationsExecutor() {
    this.contextRunner
        .withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class))
        .run(
            context -> {
              assertThat(context).hasBean("applicationTaskExecutor");
              assertThat(context.getBean(TaskExecutor.class))
                  .isSameAs(context.getBean("applicationTaskExecutor"));
              assertThat(context.getBeansOfType(Executor.class)).hasSize(1);
            });
  }

  @Test
  void anAcquireHookThatOverrunsItsTimeoutIsInterruptedOnItsThread() {
    this.contextRunner
        .withUserConfiguration(SlowHook.class)
        .withPropertyValues("conch.hook-timeout=1s")
        .run(
            context -> {
              SlowHook hook = context.getBean(SlowHook.class);
              await().atMost(WAIT).until(() -> !hook.interrupted().isEmpty());
              assertThat(hook.interrupted().get(0)).startsWith("conch-hooks-threads-");
            });
  }

  /** Whether {@code thread} is virtual, on a Java that may have no virtual threads. */
  static boolean isVirtual(Thread thread) {
    try {
      return (boolean) Thread.class.getMethod("isVirtual").invoke(thread);
    } catch (NoSuchMethodException ex) {
      return false;
    } catch (ReflectiveOperationException ex) {
      throw new IllegalStateException(ex);
    }
  }

  record Seen(String what, String thread, boolean virtual) {

    static Seen now(String what) {
      Thread thread = Thread.currentThread();
      return new Seen(what, thread.getName(), isVirtual(thread));
    }
  }

  /** Records the thread of the first acquire hook and the first acquired event. */
  static class Threads {

    private final List<Seen> seen = new CopyOnWriteArrayList<>();

    List<Seen> seen() {
      return List.copyOf(this.seen);
    }

    @OnLeadership
    void acquired(Leadership leadership) {
      this.seen.add(Seen.now("hook acquired"));
    }

    @EventListener
    void on(LeadershipAcquiredEvent event) {
      this.seen.add(Seen.now("event acquired"));
    }
  }

  /** An acquire hook that would block for a minute unless interrupted. */
  static class SlowHook {

    private final List<String> interrupted = new CopyOnWriteArrayList<>();

    List<String> interrupted() {
      return List.copyOf(this.interrupted);
    }

    @OnLeadership
    void acquired() throws InterruptedException {
      try {
        Thread.sleep(60_000);
      } catch (InterruptedException ex) {
        this.interrupted.add(Thread.currentThread().getName());
        throw ex;
      }
    }
  }
}
