package dev.conch.spring.leaderonly;

import dev.conch.Election;
import dev.conch.Leadership;
import dev.conch.spring.Elections;
import java.lang.reflect.Method;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.util.function.SingletonSupplier;

/**
 * Builds the jobs of {@link LeaderOnly @LeaderOnly} methods, refusing a misfire policy conch cannot
 * apply, and the {@link LeaderOnlyJobs} over the application's beans.
 */
final class LeaderOnlyJobsFactory {

  private LeaderOnlyJobsFactory() {}

  /**
   * The jobs, their parts looked up on first use: the {@link JobRecords} bean (else records in
   * memory, fenced by this instance's own terms) and the clock of the {@link TaskScheduler} bean
   * (else UTC). Their firings are counted once a {@link LeaderOnlyFirings} is made of them.
   */
  static LeaderOnlyJobs jobs(BeanFactory beanFactory) {
    Supplier<Elections> elections =
        SingletonSupplier.of(() -> beanFactory.getBean(Elections.class));
    Supplier<JobRecords> records =
        SingletonSupplier.of(
            () ->
                beanFactory
                    .getBeanProvider(JobRecords.class)
                    .getIfUnique(
                        () ->
                            new InMemoryJobRecords(
                                office ->
                                    elections
                                        .get()
                                        .find(office)
                                        .flatMap(Election::leadership)
                                        .map(Leadership::token)
                                        .orElse(0L))));
    Supplier<Clock> clock =
        SingletonSupplier.of(
            () -> {
              TaskScheduler scheduler =
                  beanFactory.getBeanProvider(TaskScheduler.class).getIfUnique();
              return (scheduler != null) ? scheduler.getClock() : Clock.systemUTC();
            });
    return new LeaderOnlyJobs(elections, records, clock);
  }

  /**
   * The job of {@code method}, or null when it is not {@code @Scheduled} (or its schedule is
   * disabled).
   *
   * @throws InvalidLeaderOnlyMethodException when its misfire policy cannot be applied
   */
  static @Nullable LeaderOnlyJob job(
      Method method, LeaderOnly annotation, String office, Function<String, String> resolver) {
    String thresholdText = resolver.apply(annotation.misfireThreshold());
    Duration threshold;
    try {
      threshold = DurationFormatterUtils.detectAndParse(thresholdText);
    } catch (RuntimeException ex) {
      throw new InvalidLeaderOnlyMethodException(
          method,
          "has misfireThreshold = '" + thresholdText + "', which is no duration",
          "Give a duration of zero or more: '10m', 'PT10M', or milliseconds such as '600000'.");
    }
    if (threshold.isNegative()) {
      throw new InvalidLeaderOnlyMethodException(
          method,
          "has misfireThreshold = '" + thresholdText + "', a negative duration",
          "Give a duration of zero or more: '10m', 'PT10M', or milliseconds such as '600000'.");
    }
    Set<Scheduled> schedules = JobSchedule.annotations(method);
    if (schedules.size() != 1) {
      if (annotation.misfire() != Misfire.SKIP) {
        throw new InvalidLeaderOnlyMethodException(
            method,
            "has misfire = "
                + annotation.misfire()
                + " but "
                + (schedules.isEmpty() ? "is not @Scheduled" : "has several @Scheduled")
                + ": missed firings are known only from one schedule",
            "Give it exactly one @Scheduled (cron, fixedRate or fixedDelay), or remove misfire"
                + " (accepted on such a method: misfire = SKIP, the default).");
      }
      return null;
    }
    JobSchedule schedule;
    try {
      schedule = JobSchedule.of(schedules.iterator().next(), resolver);
    } catch (RuntimeException ex) {
      // Spring's own @Scheduled processing reports a bad schedule, in its words.
      return null;
    }
    return (schedule != null)
        ? new LeaderOnlyJob(office, method, schedule, annotation.misfire(), threshold)
        : null;
  }
}
