package dev.conch.spring.boot.autoconfigure;

import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.thread.Threading;
import org.springframework.core.env.Environment;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.core.task.VirtualThreadTaskExecutor;

/**
 * The threads conch runs the application's code on, which conch owns (no application bean can drop
 * a hook): virtual threads where Boot's threading is virtual ({@code
 * spring.threads.virtual.enabled=true} on Java 21 or later), as Boot does for its own executors;
 * otherwise the core's shared platform threads.
 *
 * <p>Infrastructure of the starter, for its auto-configurations; applications do not use it.
 */
public final class ConchThreads {

  private ConchThreads() {}

  /**
   * What makes each {@code @OnLeadership} hook's thread: virtual threads, or {@code null} for the
   * core's shared hook threads ({@code conch-hooks-<office>} either way).
   */
  static @Nullable ThreadFactory hooks(Environment environment) {
    if (!Threading.VIRTUAL.isActive(environment)) {
      return null;
    }
    return new VirtualThreadTaskExecutor("conch-hooks-").getVirtualThreadFactory();
  }

  /** A thread for each task, named {@code <prefix><n>}, virtual where Boot's threading is. */
  public static Executor perTask(Environment environment, String prefix) {
    SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor(prefix);
    executor.setDaemon(true);
    executor.setVirtualThreads(Threading.VIRTUAL.isActive(environment));
    return executor;
  }
}
