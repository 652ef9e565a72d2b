package dev.conch.spring.boot.autoconfigure.leaderonly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.Holder;
import dev.conch.local.LocalOffices;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.leaderonly.InMemoryJobRecords;
import dev.conch.spring.leaderonly.JobRecord;
import dev.conch.spring.leaderonly.LeaderOnly;
import dev.conch.spring.leaderonly.Misfire;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * A fixed-rate firing is recorded at the time it fired, even when it is the term's first and waits
 * for the term's look for missed firings: the next leader counts the missed firings from that time,
 * and one recorded late by a slow look hides the firing due a period after it.
 */
@Timeout(60)
class JobFiringTimeTest {

  private static final Duration WAIT = Duration.ofSeconds(20);

  private static final String OFFICE = "app";

  private final LocalOffices offices = new LocalOffices();

  private final RecordingJobRecords records =
      new RecordingJobRecords(
          new InMemoryJobRecords(
              office -> this.offices.leader(office).map(Holder::rev).orElse(0L)));

  @Test
  void firstFiringOfATermIsRecordedWhenItFiredNotWhenTheLookForMissedOnesEnded() {
    CountDownLatch slowStore = new CountDownLatch(1);
    this.records.pauseNextRead(slowStore);
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(ConchAutoConfiguration.class, LeaderOnlyAutoConfiguration.class))
        .withPropertyValues("conch.standalone=true", "spring.application.name=" + OFFICE)
        .withBean(LocalOffices.class, () -> this.offices)
        .withBean(RecordingJobRecords.class, () -> this.records)
        .withUserConfiguration(RateJob.Config.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(Election.class).awaitLeadership(WAIT)).isTrue();
              // The term's look reads the store (held), and a firing waits for the look: it came
              // before the look ends, whichever thread makes the look.
              await().atMost(WAIT).until(this::aFiringWaitsForTheLook);
              Instant lookEnded = Instant.now();
              slowStore.countDown();

              await().atMost(WAIT).until(() -> !this.records.claims().isEmpty());
              JobRecord first = this.records.claims().get(0);
              assertThat(first.scheduled()).isBefore(lookEnded);
            });
  }

  /** A scheduled call is in the look: it makes it (the held read) or waits to enter it. */
  private boolean aFiringWaitsForTheLook() {
    if (this.records.pausedReader() == null) {
      return false;
    }
    return Thread.getAllStackTraces().values().stream()
        .anyMatch(frames -> calls(frames, "guard") && calls(frames, "recoverOnce"));
  }

  private static boolean calls(StackTraceElement[] frames, String method) {
    return Arrays.stream(frames).anyMatch(frame -> frame.getMethodName().equals(method));
  }

  static class RateJob {

    @Scheduled(fixedRate = 1000)
    @LeaderOnly(misfire = Misfire.RUN_ONCE)
    void run() {}

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class Config {

      @Bean
      RateJob rateJob() {
        return new RateJob();
      }
    }
  }
}
