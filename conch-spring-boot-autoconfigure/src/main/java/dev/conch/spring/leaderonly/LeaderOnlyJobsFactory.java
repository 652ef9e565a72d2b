package dev.conch.spring.leaderonly;

import dev.conch.Election;
import dev.conch.Leadership;
import dev.conch.spring.Elections;
import java.lang.reflect.Method;
import java.time.Clock;
import java.time.Duration;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.config.ScheduledTaskHolder;
import org.springframework.util.function.SingletonSupplier;

/**
 * Builds the jobs of {@link LeaderOnly @LeaderOnly} methods, refusing a misfire policy conch cannot
 * apply, and the {@link LeaderOnlyJobs} over the application's beans.
 */
final class LeaderOnlyJobsFactory {

  private static final String THRESHOLDS =
      "Give a duration of zero or more: '10m', 'PT10M', or milliseconds such as '600000'.";

  private LeaderOnlyJobsFactory() {}

  /**
   * The jobs, their parts looked up on first use: the {@link JobRecords} bean (else records in
   * memory, fenced by this instance's own terms), the clock of the {@link TaskScheduler} bean (else
   * the system's, in its zone, as Spring's own scheduler) and the schedules the {@link
   * ScheduledTaskHolder} beans hold. Their firings are counted once a {@link LeaderOnlyFirings} is
   * made of them.
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
              return (scheduler != null) ? scheduler.getClock() : Clock.systemDefaultZone();
            });
    HeldSchedules schedules =
        new HeldSchedules(
            () -> beanFactory.getBeanProvider(ScheduledTaskHolder.class).orderedStream().toList(),
            clock);
    return new LeaderOnlyJobs(elections, records, clock, schedules);
  }

  /**
   * The job of {@code method}, its schedule to be read from Spring once Spring holds it; null when
   * it has no misfire policy.
   *
   * @throws InvalidLeaderOnlyMethodException when its misfire policy cannot be applied
   */
  static @Nullable LeaderOnlyJob job(
      Method method, LeaderOnly annotation, String office, Function<String, String> resolver) {
    if (annotation.misfire() == Misfire.NONE) {
      // No policy, no job: nothing recorded, nothing looked for.
      return null;
    }
    String thresholdText = resolver.apply(annotation.misfireThreshold());
    Duration threshold;
    try {
      threshold = DurationFormatterUtils.detectAndParse(thresholdText);
    } catch (RuntimeException ex) {
      throw new InvalidLeaderOnlyMethodException(
          method,
          "has misfireThreshold = '" + thresholdText + "', which is no duration",
          THRESHOLDS);
    }
    if (threshold.isNegative()) {
      throw new InvalidLeaderOnlyMethodException(
          method,
          "has misfireThreshold = '" + thresholdText + "', a negative duration",
          THRESHOLDS);
    }
    // Only how many there are: what they say is read from the tasks Spring makes of them.
    int schedules =
        AnnotatedElementUtils.getMergedRepeatableAnnotations(method, Scheduled.class).size();
    if (schedules != 1) {
      if (annotation.misfire() == Misfire.SKIP) {
        return null; // the default: a method called only by code, or one of several schedules
      }
      throw unschedulable(
          method,
          annotation.misfire(),
          (schedules == 0) ? "is not @Scheduled" : "has several @Scheduled");
    }
    return new LeaderOnlyJob(office, method, annotation.misfire(), threshold);
  }

  /** The refusal of {@code misfire} on {@code method}, which {@code problem}. */
  static InvalidLeaderOnlyMethodException unschedulable(
      Method method, Misfire misfire, String problem) {
    return new InvalidLeaderOnlyMethodException(
        method,
        "has misfire = "
            + misfire
            + " but "
            + problem
            + ": missed firings are known only from one schedule",
        "Give it exactly one @Scheduled (cron, fixedRate or fixedDelay) in an application with"
            + " @EnableScheduling, or remove misfire (accepted on such a method: misfire = SKIP,"
            + " the default, or NONE).");
  }
}
