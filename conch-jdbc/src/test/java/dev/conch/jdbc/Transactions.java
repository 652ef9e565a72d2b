package dev.conch.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * What the race tests share: named threads for the second transaction, a log of events in the order
 * they happened, and a connection that stops at the fence's first INSERT until a barrier lets every
 * party go.
 */
final class Transactions implements AutoCloseable {

  private final AtomicInteger threadCount = new AtomicInteger();
  private final ExecutorService threads =
      Executors.newCachedThreadPool(
          task -> {
            Thread thread = new Thread(task, "fence-race-" + threadCount.incrementAndGet());
            thread.setDaemon(true);
            return thread;
          });
  private final List<String> events = Collections.synchronizedList(new ArrayList<>());

  /** Runs {@code work} on a named thread of its own. */
  <T> Future<T> inThread(Callable<T> work) {
    return threads.submit(work);
  }

  /**
   * Waits until {@code waitingSessions} (a count) finds some session waiting for a lock, asked on a
   * new connection every {@code interval}, or until {@code other} ended without waiting.
   */
  static void awaitWaitingOrDone(
      Future<?> other, Callable<Connection> connect, String waitingSessions, Duration interval) {
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(interval)
        .until(
            () -> {
              if (other.isDone()) {
                return true;
              }
              try (Connection c = connect.call();
                  Statement s = c.createStatement();
                  ResultSet count = s.executeQuery(waitingSessions)) {
                return count.next() && count.getLong(1) > 0;
              }
            });
  }

  /** Notes that {@code event} happened now. */
  void event(String event) {
    events.add(event);
  }

  /** The events so far, in order. */
  List<String> events() {
    synchronized (events) {
      return List.copyOf(events);
    }
  }

  /** What {@code future} threw, unwrapped; fails when it returned normally. */
  static Throwable failure(Future<?> future) throws InterruptedException {
    try {
      Object result = future.get(20, TimeUnit.SECONDS);
      throw new AssertionError("expected a failure, got " + result);
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("the transaction did not end in 20 s", e);
    }
  }

  /** The value of {@code future}, waited for with a deadline. */
  static <T> T value(Future<T> future) throws Exception {
    try {
      return future.get(20, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof Exception cause) {
        throw cause;
      }
      throw e;
    }
  }

  /**
   * Asserts that {@code failure} is the fence refusing a stale token, or the database failing the
   * transaction in a way the caller retries ({@code retryable}): never a success.
   */
  static void assertRefused(Throwable failure, Predicate<SQLException> retryable) {
    assertThat(failure)
        .satisfiesAnyOf(
            e -> assertThat(e).isInstanceOf(StaleTokenException.class),
            e ->
                assertThat(e)
                    .isInstanceOf(SQLException.class)
                    .matches(x -> retryable.test((SQLException) x), "a retryable SQLException"));
  }

  /**
   * {@code connection}, stopping at its first INSERT into the fence table until {@code barrier}
   * trips: two transactions that both found no row then insert at the same moment.
   */
  static Connection pausingAtFirstInsert(Connection connection, CyclicBarrier barrier) {
    AtomicBoolean paused = new AtomicBoolean();
    InvocationHandler handler =
        (proxy, method, args) -> {
          if (method.getName().equals("prepareStatement")
              && args[0] instanceof String sql
              && sql.startsWith("INSERT")
              && sql.contains(JdbcFence.DEFAULT_TABLE)
              && paused.compareAndSet(false, true)) {
            barrier.await(10, TimeUnit.SECONDS);
          }
          try {
            return method.invoke(connection, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        };
    return (Connection)
        Proxy.newProxyInstance(
            Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, handler);
  }

  @Override
  public void close() {
    threads.shutdownNow();
  }
}
