package dev.conch.spring.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

/**
 * An executor closed after it took conch's task but before it started it never runs that task; the
 * core's thread that handed it over must not wait for it forever. These waits once held both of the
 * process's event threads, and no election of the process delivered an event again.
 */
@Timeout(30)
class ExecutorHandoffTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  @Test
  void aTaskWhoseThreadStartsAfterTheExecutorClosedRunsOnTheCallerOnce() throws Exception {
    CountDownLatch threadMade = new CountDownLatch(1);
    CountDownLatch startThread = new CountDownLatch(1);
    SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor("handoff-");
    executor.setTaskTerminationTimeout(2000);
    executor.setThreadFactory(
        (runnable) ->
            new Thread(
                () -> {
                  threadMade.countDown();
                  awaitQuietly(startThread);
                  runnable.run(); // Spring's wrapper: it drops the task, the executor closed
                },
                "handoff-late"));
    ExecutorHandoff handoff = new ExecutorHandoff(executor);
    AtomicInteger runs = new AtomicInteger();
    AtomicReference<String> ranOn = new AtomicReference<>();
    CompletableFuture<Void> handedOver =
        CompletableFuture.runAsync(
            () ->
                runQuietly(
                    handoff,
                    () -> {
                      runs.incrementAndGet();
                      ranOn.set(Thread.currentThread().getName());
                    }));
    assertThat(threadMade.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    executor.close();
    startThread.countDown();

    handedOver.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(runs).hasValue(1);
    assertThat(ranOn.get()).doesNotStartWith("handoff-");
  }

  @Test
  void aTaskQueuedInAPoolThatIsShutDownRunsOnTheCallerOnce() throws Exception {
    BusyPool busy = new BusyPool(false);
    AtomicInteger runs = new AtomicInteger();
    CompletableFuture<Void> handedOver = busy.handOver(runs::incrementAndGet);
    // Queued behind the busy thread; the shutdown drops it (and interrupts the busy one).
    busy.pool.shutdown();

    handedOver.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(runs).hasValue(1);
  }

  @Test
  void aTaskAPoolStillRunsAfterItsShutdownRunsOnceEither() throws Exception {
    BusyPool busy = new BusyPool(true);
    AtomicInteger runs = new AtomicInteger();
    CompletableFuture<Void> handedOver = busy.handOver(runs::incrementAndGet);
    // The pool is shut down but will run what it queued: whoever claims the task first runs it.
    CompletableFuture<Void> shutdown = CompletableFuture.runAsync(busy.pool::shutdown);
    handedOver.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    busy.release.countDown();
    shutdown.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(busy.pool.getThreadPoolExecutor().awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    assertThat(runs).hasValue(1);
  }

  /**
   * A pool of one thread, kept busy until {@link #release}: what it is handed waits in its queue.
   */
  private static final class BusyPool {

    final ThreadPoolTaskExecutor pool = new ThreadPoolTaskExecutor();

    final CountDownLatch release = new CountDownLatch(1);

    BusyPool(boolean runQueuedOnShutdown) throws InterruptedException {
      this.pool.setCorePoolSize(1);
      this.pool.setMaxPoolSize(1);
      this.pool.setWaitForTasksToCompleteOnShutdown(runQueuedOnShutdown);
      this.pool.setAwaitTerminationSeconds(10);
      this.pool.initialize();
      CountDownLatch busy = new CountDownLatch(1);
      this.pool.execute(
          () -> {
            busy.countDown();
            awaitQuietly(this.release);
          });
      assertThat(busy.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    }

    /** Hands {@code body} to the pool through conch's hand-off, and waits until it is queued. */
    CompletableFuture<Void> handOver(ExecutorHandoff.Body body) {
      ExecutorHandoff handoff = new ExecutorHandoff(this.pool);
      CompletableFuture<Void> handedOver =
          CompletableFuture.runAsync(() -> runQuietly(handoff, body));
      await(() -> this.pool.getThreadPoolExecutor().getQueue().size() == 1);
      return handedOver;
    }
  }

  @Test
  void aTaskAnOpenExecutorRunsRunsOnItsThread() throws Exception {
    SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor("open-");
    ExecutorHandoff handoff = new ExecutorHandoff(executor);
    AtomicReference<String> ranOn = new AtomicReference<>();
    handoff.run(() -> ranOn.set(Thread.currentThread().getName()));
    assertThat(ranOn.get()).startsWith("open-");
    executor.close();
  }

  private static void runQuietly(ExecutorHandoff handoff, ExecutorHandoff.Body body) {
    try {
      handoff.run(body);
    } catch (Exception ex) {
      throw new IllegalStateException(ex);
    }
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(20, TimeUnit.SECONDS);
    } catch (InterruptedException ex) {
      Thread.currentThread().interrupt();
    }
  }

  private static void await(BooleanSupplier condition) {
    Awaitility.await().atMost(WAIT).until(condition::getAsBoolean);
  }
}
