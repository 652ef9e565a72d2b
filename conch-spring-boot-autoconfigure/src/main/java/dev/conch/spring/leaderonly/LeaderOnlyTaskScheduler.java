package dev.conch.spring.leaderonly;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ScheduledFuture;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.Trigger;

/**
 * A {@link TaskScheduler} whose every task is guarded at each firing ({@link
 * LeaderOnlyTasks#scheduler}): the schedule itself runs on every instance, the work only on the
 * leader, so that a firing after a hand-over runs on the new leader without scheduling anything
 * again.
 */
final class LeaderOnlyTaskScheduler implements TaskScheduler {

  private final TaskScheduler delegate;

  private final UnaryOperator<Runnable> guard;

  LeaderOnlyTaskScheduler(TaskScheduler delegate, UnaryOperator<Runnable> guard) {
    this.delegate = delegate;
    this.guard = guard;
  }

  @Override
  public Clock getClock() {
    return this.delegate.getClock();
  }

  @Override
  public @Nullable ScheduledFuture<?> schedule(Runnable task, Trigger trigger) {
    return this.delegate.schedule(this.guard.apply(task), trigger);
  }

  @Override
  public ScheduledFuture<?> schedule(Runnable task, Instant startTime) {
    return this.delegate.schedule(this.guard.apply(task), startTime);
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, Instant startTime, Duration period) {
    return this.delegate.scheduleAtFixedRate(this.guard.apply(task), startTime, period);
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, Duration period) {
    return this.delegate.scheduleAtFixedRate(this.guard.apply(task), period);
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(
      Runnable task, Instant startTime, Duration delay) {
    return this.delegate.scheduleWithFixedDelay(this.guard.apply(task), startTime, delay);
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, Duration delay) {
    return this.delegate.scheduleWithFixedDelay(this.guard.apply(task), delay);
  }

  @Override
  public String toString() {
    return "LeaderOnlyTaskScheduler over " + this.delegate;
  }
}
