package dev.conch.spring.health;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Rounds of health checks for {@link HealthGatedCandidacy}, each bounded: a round runs on a thread
 * of the checks' executor, so that the poll thread can stop waiting for it; one that has not
 * answered within the timeout counts as not UP for every name it checks, and is awaited again on
 * the next call, never a second round started beside it. Used by one thread at a time (the poll
 * thread), but for {@link #cancel()}.
 */
final class HealthRounds {

  private final Function<String, @Nullable String> probe;

  private final Duration timeout;

  private final Executor checks;

  private final Map<String, String> simulated = new ConcurrentHashMap<>();

  private volatile @Nullable FutureTask<Map<String, @Nullable String>> round;

  private long roundStarted;

  private volatile @Nullable String checking;

  /**
   * @param probe what is wrong with a contributor or group, by name; {@code null} when it is UP
   */
  HealthRounds(Function<String, @Nullable String> probe, Duration timeout, Executor checks) {
    this.probe = probe;
    this.timeout = timeout;
    this.checks = checks;
  }

  /** Interrupts the round that is still running, if any: the checking stops. */
  void cancel() {
    FutureTask<Map<String, @Nullable String>> current = this.round;
    this.round = null;
    if (current != null) {
      current.cancel(true);
    }
  }

  void simulate(String name, String status) {
    this.simulated.put(name, status);
  }

  void clearSimulations() {
    this.simulated.clear();
  }

  /** What is wrong with each of {@code names} ({@code null}: UP), within the timeout. */
  Map<String, @Nullable String> check(Set<String> names) throws InterruptedException {
    FutureTask<Map<String, @Nullable String>> current = this.round;
    if (current == null) {
      this.roundStarted = System.nanoTime();
      current = new FutureTask<>(() -> checkAll(names));
      try {
        this.checks.execute(current);
      } catch (RuntimeException ex) {
        throw new IllegalStateException("the health checks could not start", ex);
      }
      this.round = current;
    }
    long left = this.timeout.toNanos() - (System.nanoTime() - this.roundStarted);
    try {
      Map<String, @Nullable String> answers = current.get(Math.max(left, 0), TimeUnit.NANOSECONDS);
      this.round = null;
      return answers;
    } catch (TimeoutException ex) {
      String reason =
          "the health check of "
              + this.checking
              + " did not answer within "
              + this.timeout.toMillis()
              + "ms";
      Map<String, @Nullable String> all = new LinkedHashMap<>();
      names.forEach(name -> all.put(name, reason));
      return all;
    } catch (ExecutionException ex) {
      this.round = null;
      throw new IllegalStateException(ex.getCause());
    } catch (CancellationException ex) {
      throw new InterruptedException("the checking stopped"); // cancel(): stopping
    }
  }

  private Map<String, @Nullable String> checkAll(Set<String> names) {
    Map<String, @Nullable String> answers = new LinkedHashMap<>();
    for (String name : names) {
      this.checking = name;
      String status = this.simulated.get(name);
      if (status != null) {
        answers.put(name, "UP".equals(status) ? null : name + " is " + status + " (simulated)");
        continue;
      }
      try {
        answers.put(name, this.probe.apply(name));
      } catch (RuntimeException | Error ex) {
        // An Error too (a StackOverflowError in the indicator): a check that fails is not UP, and
        // the other names of the round are still checked.
        answers.put(name, "the health check of " + name + " failed: " + ex);
      }
    }
    return answers;
  }
}
