package dev.conch.spring.leaderonly;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.config.ScheduledTaskHolder;
import org.springframework.util.ReflectionUtils;

/**
 * The schedule of a {@code @Scheduled} method is the one Spring's scheduling made of it (the tasks
 * its {@link ScheduledTaskHolder} holds), with the zone, the {@code timeUnit} and the placeholders
 * Spring applied, never the annotation read again.
 */
@Timeout(30)
class HeldSchedulesTest {

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withUserConfiguration(Scheduling.class)
          .withBean(Jobs.class)
          .withPropertyValues("jobs.delay=90", "jobs.rate=PT30S", "jobs.initial=1h");

  @Test
  void cronIsReadWithTheZoneSpringGaveIt() {
    held(
        "tokyo",
        schedule -> {
          assertThat(schedule.kind()).isEqualTo(JobSchedule.Kind.CRON);
          JobRecord last = done("2026-11-30T17:00:00Z");
          // 02:00 in Tokyo is 17:00 UTC the day before, whatever the scheduler's own zone.
          assertThat(schedule.missed(last, Instant.parse("2026-12-01T17:00:05Z")))
              .isEqualTo(new JobSchedule.Missed(Instant.parse("2026-12-01T17:00:00Z"), 1));
        });
  }

  @Test
  void fixedRateIsReadInItsTimeUnit() {
    held(
        "everyTwoMinutes",
        schedule -> {
          assertThat(schedule.kind()).isEqualTo(JobSchedule.Kind.FIXED_RATE);
          assertThat(schedule.period()).isEqualTo(Duration.ofMinutes(2));
          assertThat(schedule.initialDelay()).isEqualTo(Duration.ofHours(1));
        });
  }

  @Test
  void fixedDelayStringIsReadWithItsPlaceholderResolvedInItsTimeUnit() {
    held(
        "delayFromProperty",
        schedule -> {
          assertThat(schedule.kind()).isEqualTo(JobSchedule.Kind.FIXED_DELAY);
          assertThat(schedule.period()).isEqualTo(Duration.ofSeconds(90));
          assertThat(schedule.initialDelay()).isEqualTo(Duration.ofHours(1));
        });
  }

  @Test
  void fixedRateStringIsReadWithItsPlaceholderResolved() {
    held(
        "rateFromProperty",
        schedule -> {
          assertThat(schedule.kind()).isEqualTo(JobSchedule.Kind.FIXED_RATE);
          assertThat(schedule.period()).isEqualTo(Duration.ofSeconds(30));
        });
  }

  @Test
  void twoBeansOfOneClassHoldOneSchedule() {
    this.contextRunner
        .withBean("second", Jobs.class)
        .run(context -> assertThat(schedules(context).of(method("tokyo"))).hasSize(1));
  }

  @Test
  void aMethodSpringDoesNotScheduleHasNoSchedule() {
    this.contextRunner.run(
        context -> {
          assertThat(schedules(context).of(method("disabled"))).isEmpty();
          assertThat(schedules(context).of(method("notScheduled"))).isEmpty();
        });
  }

  @Test
  void withoutSchedulingNothingIsHeld() {
    new ApplicationContextRunner()
        .withBean(Jobs.class)
        .run(
            context -> {
              assertThat(schedules(context).scheduling()).isFalse();
              assertThat(schedules(context).of(method("tokyo"))).isEmpty();
            });
  }

  private void held(String name, Consumer<JobSchedule> assertions) {
    this.contextRunner.run(
        context -> {
          assertThat(context).hasNotFailed();
          Set<JobSchedule> held = schedules(context).of(method(name));
          assertThat(held).hasSize(1);
          assertions.accept(held.iterator().next());
        });
  }

  private static HeldSchedules schedules(ApplicationContext context) {
    List<ScheduledTaskHolder> holders =
        context.getBeanProvider(ScheduledTaskHolder.class).orderedStream().toList();
    // A zone of its own, so that only the task's zone can put 02:00 Tokyo at 17:00 UTC.
    Clock clock = Clock.system(ZoneId.of("America/New_York"));
    return new HeldSchedules(() -> holders, () -> clock);
  }

  private static Method method(String name) {
    Method method = ReflectionUtils.findMethod(Jobs.class, name);
    assertThat(method).as(name).isNotNull();
    return method;
  }

  private static JobRecord done(String at) {
    Instant time = Instant.parse(at);
    return new JobRecord(
        "o", "Jobs.tokyo()", 7, "a", time, time, time.plusSeconds(1), JobRecord.Outcome.DONE);
  }

  @Configuration(proxyBeanMethods = false)
  @EnableScheduling
  static class Scheduling {}

  /** Jobs that do nothing: a firing during a test changes nothing. */
  static class Jobs {

    @Scheduled(cron = "0 0 2 * * *", zone = "Asia/Tokyo")
    void tokyo() {}

    @Scheduled(fixedRate = 2, initialDelay = 60, timeUnit = TimeUnit.MINUTES)
    void everyTwoMinutes() {}

    @Scheduled(
        fixedDelayString = "${jobs.delay}",
        initialDelayString = "${jobs.initial}",
        timeUnit = TimeUnit.SECONDS)
    void delayFromProperty() {}

    @Scheduled(fixedRateString = "${jobs.rate}", initialDelayString = "${jobs.initial}")
    void rateFromProperty() {}

    @Scheduled(cron = "-")
    void disabled() {}

    void notScheduled() {}
  }
}
