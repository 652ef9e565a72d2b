package dev.conch.spring.boot.autoconfigure;

import java.time.Duration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnThreading;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

/**
 * The executor conch runs the application's code on: the {@code @OnLeadership} methods and the
 * listeners of leadership events, each call while the election's own thread waits for it. Virtual
 * threads with {@code spring.threads.virtual.enabled=true} on Java 21 or later (Boot's {@link
 * Threading} decides, as for its own task executor), platform threads otherwise; a thread for each
 * call, named {@code conch-task-<n>}, daemon, as the core's hook threads are: the core already
 * bounds how many hooks and deliveries run at once, and a queue here would only add to a hook's
 * time.
 *
 * <p>The bean is named {@value #BEAN_NAME}; an application's own bean of that name (any {@link
 * java.util.concurrent.Executor}) replaces it. It is no default candidate for injection by type, so
 * Boot's {@code applicationTaskExecutor}, which backs off when it sees another executor, stays.
 *
 * <p>conch's own safety threads (the lease keeper, the elections' loops, their timer) are the
 * core's platform threads and never run here: nothing the application does on this executor can
 * starve them.
 */
@Configuration(proxyBeanMethods = false)
class ConchTaskExecutorConfiguration {

  /** The name of the executor bean, also the one an application's replacement must have. */
  static final String BEAN_NAME = "conchTaskExecutor";

  /**
   * How long closing the executor waits for code still running on it before interrupting it; by
   * then each office was resigned and its lose hooks returned, so what is left is a hook that
   * overran its timeout.
   */
  private static final Duration TERMINATION_TIMEOUT = Duration.ofSeconds(2);

  @Bean(name = BEAN_NAME, defaultCandidate = false)
  @ConditionalOnMissingBean(name = BEAN_NAME)
  @ConditionalOnThreading(Threading.VIRTUAL)
  SimpleAsyncTaskExecutor conchTaskExecutorVirtualThreads() {
    SimpleAsyncTaskExecutor executor = executor();
    executor.setVirtualThreads(true);
    return executor;
  }

  @Bean(name = BEAN_NAME, defaultCandidate = false)
  @ConditionalOnMissingBean(name = BEAN_NAME)
  @ConditionalOnThreading(Threading.PLATFORM)
  SimpleAsyncTaskExecutor conchTaskExecutor() {
    return executor();
  }

  private static SimpleAsyncTaskExecutor executor() {
    SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor("conch-task-");
    executor.setDaemon(true);
    executor.setTaskTerminationTimeout(TERMINATION_TIMEOUT.toMillis());
    return executor;
  }
}
