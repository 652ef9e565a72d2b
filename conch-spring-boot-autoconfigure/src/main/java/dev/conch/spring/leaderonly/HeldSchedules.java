package dev.conch.spring.leaderonly;

import java.lang.reflect.Method;
import java.time.Clock;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.springframework.scheduling.config.ScheduledTask;
import org.springframework.scheduling.config.ScheduledTaskHolder;
import org.springframework.scheduling.support.ScheduledMethodRunnable;

/**
 * The schedules Spring holds for a method, and a job's from them: the tasks of the {@link
 * ScheduledTaskHolder} beans (the {@code @Scheduled} post-processor among them), what Boot's {@code
 * ScheduledTasksEndpoint} reads, rather than the {@code @Scheduled} annotation read again.
 *
 * <p>Spring wraps a task's runnable (to track its outcome) in a class of its own that names the
 * method as {@link ScheduledMethodRunnable#toString()} does, {@code package.Class.method}: a
 * runnable that is not a {@link ScheduledMethodRunnable} is matched by that name, as the endpoint
 * names it. Only methods without parameters can be scheduled, so the name is unambiguous.
 */
final class HeldSchedules {

  private final Supplier<? extends Collection<ScheduledTaskHolder>> holders;

  private final Supplier<Clock> clock;

  /**
   * @param holders the holders of the application's scheduled tasks
   * @param clock the scheduler's clock
   */
  HeldSchedules(
      Supplier<? extends Collection<ScheduledTaskHolder>> holders, Supplier<Clock> clock) {
    this.holders = holders;
    this.clock = clock;
  }

  /** Whether the application holds scheduled tasks at all ({@code @EnableScheduling}). */
  boolean scheduling() {
    return !this.holders.get().isEmpty();
  }

  /**
   * The distinct schedules of the tasks that run {@code method} (one per {@code @Scheduled}: two
   * beans of one class hold the same schedule twice); a task of another kind than cron, fixed rate
   * or fixed delay is left out.
   */
  Set<JobSchedule> of(Method method) {
    Set<JobSchedule> schedules = new LinkedHashSet<>();
    if (method.getParameterCount() != 0) {
      return schedules;
    }
    for (ScheduledTaskHolder holder : this.holders.get()) {
      for (ScheduledTask scheduled : holder.getScheduledTasks()) {
        if (runs(scheduled, method)) {
          JobSchedule schedule = JobSchedule.of(scheduled.getTask(), this.clock.get());
          if (schedule != null) {
            schedules.add(schedule);
          }
        }
      }
    }
    return schedules;
  }

  /**
   * Gives {@code job} the schedule Spring holds for its method, unless it has one already.
   *
   * @return whether it has one now: false when Spring holds no single schedule for it
   */
  boolean schedule(LeaderOnlyJob job) {
    if (job.scheduled()) {
      return true;
    }
    Set<JobSchedule> held = of(job.method());
    if (held.size() != 1) {
      return false;
    }
    job.schedule(held.iterator().next());
    return true;
  }

  /**
   * Gives each of {@code jobs} the schedule Spring holds for it.
   *
   * @return the jobs with the default policy, {@link Misfire#SKIP}, that Spring holds no single
   *     schedule for (scheduling not enabled, as in many tests; a disabled cron): they are no jobs
   * @throws InvalidLeaderOnlyMethodException for a job with {@link Misfire#RUN_ONCE} that Spring
   *     holds no single schedule for: its policy cannot be applied
   */
  Map<LeaderOnlyJob, String> scheduleAll(Collection<LeaderOnlyJob> jobs) {
    Map<LeaderOnlyJob, String> unscheduled = new LinkedHashMap<>();
    for (LeaderOnlyJob job : jobs) {
      if (schedule(job)) {
        continue;
      }
      Set<JobSchedule> held = of(job.method());
      String why =
          !scheduling()
              ? "scheduling is not enabled (no @EnableScheduling), so Spring holds no schedule"
                  + " for it"
              : held.isEmpty()
                  ? "Spring holds no cron, fixed-rate or fixed-delay task for it (a disabled"
                      + " cron '-'?)"
                  : "Spring holds several schedules for it: " + held;
      if (job.misfire() == Misfire.SKIP) {
        unscheduled.put(job, why);
      } else {
        throw LeaderOnlyJobsFactory.unschedulable(job.method(), job.misfire(), why);
      }
    }
    return unscheduled;
  }

  private static boolean runs(ScheduledTask scheduled, Method method) {
    Runnable runnable = scheduled.getTask().getRunnable();
    if (runnable instanceof ScheduledMethodRunnable methodRunnable) {
      return methodRunnable.getMethod().equals(method);
    }
    return runnable
        .toString()
        .equals(method.getDeclaringClass().getName() + "." + method.getName());
  }
}
