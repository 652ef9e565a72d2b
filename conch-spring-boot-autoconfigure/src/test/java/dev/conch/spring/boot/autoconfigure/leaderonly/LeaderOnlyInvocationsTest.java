package dev.conch.spring.boot.autoconfigure.leaderonly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.Leadership;
import dev.conch.local.LocalOffices;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.leaderonly.JobRecord;
import dev.conch.spring.leaderonly.LeaderOnly;
import dev.conch.spring.leaderonly.LeaderOnlyInvocations;
import dev.conch.spring.leaderonly.LeaderOnlyJobs;
import dev.conch.spring.leaderonly.Misfire;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * What every {@link LeaderOnlyInvocations} bean is told of a {@link LeaderOnly @LeaderOnly} call,
 * and when: {@code ended} comes once all of the run is done, its job record included, so that a
 * test kit counting with it finds what the run did.
 */
@Timeout(60)
class LeaderOnlyInvocationsTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private final LocalOffices offices = new LocalOffices();

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ConchAutoConfiguration.class, LeaderOnlyAutoConfiguration.class))
          .withPropertyValues("conch.standalone=true", "spring.application.name=app")
          .withBean(LocalOffices.class, () -> this.offices)
          .withUserConfiguration(Scheduling.class)
          .withBean(Recorder.class)
          .withBean(Job.class);

  @Test
  void endedIsToldOnceTheRunAndItsRecordAreDone() {
    this.contextRunner.run(
        context -> {
          assertThat(context.getBean(Election.class).awaitLeadership(WAIT)).isTrue();
          Recorder recorder = context.getBean(Recorder.class);

          context.getBean(Job.class).report();

          assertThat(recorder.lines)
              .containsExactly(
                  "run app Job.report()",
                  "proceed Job.report()",
                  "body",
                  "proceeded Job.report()",
                  "ended app Job.report() recorded DONE");
        });
  }

  @Test
  void endedIsToldOfARunThatThrew() {
    this.contextRunner.run(
        context -> {
          assertThat(context.getBean(Election.class).awaitLeadership(WAIT)).isTrue();
          Recorder recorder = context.getBean(Recorder.class);

          assertThatIllegalStateException().isThrownBy(context.getBean(Job.class)::fail);

          assertThat(recorder.lines).endsWith("ended app Job.fail() recorded FAILED");
        });
  }

  @Test
  void aSkippedCallIsNotAnEnd() throws Exception {
    try (Election other =
        this.offices.election(ElectionOptions.builder("app").candidateId("other").build())) {
      other.start();
      assertThat(other.awaitLeadership(WAIT)).isTrue();
      this.contextRunner.run(
          context -> {
            Recorder recorder = context.getBean(Recorder.class);

            context.getBean(Job.class).report();

            assertThat(recorder.lines).containsExactly("skipped app Job.report()");
          });
    }
  }

  @Test
  void aListenerThatFailsAtTheEndDoesNotReplaceWhatTheCallThrew() {
    this.contextRunner
        .withBean(
            "failing",
            LeaderOnlyInvocations.class,
            () ->
                new LeaderOnlyInvocations() {
                  @Override
                  public void ended(String office, String method) {
                    throw new IllegalArgumentException("listener");
                  }
                })
        .run(
            context -> {
              assertThat(context.getBean(Election.class).awaitLeadership(WAIT)).isTrue();

              assertThatIllegalStateException()
                  .isThrownBy(context.getBean(Job.class)::fail)
                  .withMessage("failed");
            });
  }

  /** Writes down what it is told, with the job's record as it stands when the run ended. */
  static class Recorder implements LeaderOnlyInvocations {

    final List<String> lines = new CopyOnWriteArrayList<>();

    private final ObjectProvider<LeaderOnlyJobs> jobs;

    Recorder(ObjectProvider<LeaderOnlyJobs> jobs) {
      this.jobs = jobs;
    }

    @Override
    public void run(String office, String method) {
      this.lines.add("run " + office + " " + method);
    }

    @Override
    public @Nullable Object proceed(Leadership leadership, String method, Call call)
        throws Throwable {
      this.lines.add("proceed " + method);
      try {
        return call.proceed();
      } finally {
        this.lines.add("proceeded " + method);
      }
    }

    @Override
    public void ended(String office, String method) {
      String job = method.substring(0, method.length() - 2);
      String outcome =
          this.jobs.getObject().lastRuns(office).stream()
              .filter(run -> run.job().endsWith(job + "()"))
              .map(JobRecord::outcome)
              .map(Enum::name)
              .findFirst()
              .orElse("nothing");
      this.lines.add("ended " + office + " " + method + " recorded " + outcome);
    }

    @Override
    public void skipped(String office, String method) {
      this.lines.add("skipped " + office + " " + method);
    }
  }

  /** What schedules the jobs, so that their runs are recorded. */
  @Configuration(proxyBeanMethods = false)
  @EnableScheduling
  static class Scheduling {}

  /** Jobs the tests call; first scheduled a day after start. */
  static class Job {

    private final Recorder recorder;

    Job(Recorder recorder) {
      this.recorder = recorder;
    }

    @Scheduled(fixedDelay = 1, initialDelay = 1, timeUnit = TimeUnit.DAYS)
    @LeaderOnly(misfire = Misfire.SKIP)
    public void report() {
      this.recorder.lines.add("body");
    }

    @Scheduled(fixedDelay = 1, initialDelay = 1, timeUnit = TimeUnit.DAYS)
    @LeaderOnly(misfire = Misfire.SKIP)
    public void fail() {
      throw new IllegalStateException("failed");
    }
  }
}
