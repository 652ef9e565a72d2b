package dev.conch.spring.boot.autoconfigure.leaderonly;

import static dev.conch.spring.boot.autoconfigure.ConchTestSupport.freshOffice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.boot.autoconfigure.lifecycle.LeaderLifecycleAutoConfiguration;
import dev.conch.spring.leaderonly.CurrentLeadership;
import dev.conch.spring.leaderonly.JobRecord;
import dev.conch.spring.leaderonly.LeaderOnly;
import dev.conch.spring.leaderonly.LeaderOnlyJobs;
import dev.conch.spring.leaderonly.LeaderOnlyTasks;
import dev.conch.spring.leaderonly.Misfire;
import dev.conch.test.EtcdExtension;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.Lifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * A graceful hand-over waits for the running job, whichever way it is asked for: two instances of
 * an application with a {@code @Scheduled(fixedRate) @LeaderOnly} job that works 500 ms (or a
 * {@link LeaderOnlyTasks} task that does), against a real etcd member. The office is resigned,
 * handed to the other instance by name, or left by closing the context (what SIGTERM does) while a
 * run is under way: the successor's first run starts only after the old run ended, and the old
 * run's record says it completed. A {@code Lifecycle} bean bound to the office stops after the old
 * run ended (the lose hooks come after the running work) and starts on the successor after that.
 */
@Timeout(120)
class HandOverMidRunEtcdTest {

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private static final Duration WAIT = Duration.ofSeconds(30);

  /** Every run of every instance: who, and when it started and ended (nanoTime). */
  private static final List<Run> runs = new CopyOnWriteArrayList<>();

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ConchAutoConfiguration.class,
                  LeaderOnlyAutoConfiguration.class,
                  LeaderLifecycleAutoConfiguration.class))
          .withUserConfiguration(Jobs.class)
          .withPropertyValues("conch.etcd.timeout=2s", "conch.balance.enabled=false");

  private ApplicationContextRunner instance(String office, String id) {
    return this.contextRunner.withPropertyValues(
        "conch.etcd.endpoints=" + etcd.cluster().endpoints(),
        "conch.office=" + office,
        "conch.offices." + office + ".lifecycle-beans=consumer",
        "conch.candidate.id=" + id);
  }

  @Test
  void resignWaitsForTheRunningJob() {
    handOverMidRun("resign", "job", a -> election(a).resign());
  }

  @Test
  void namedTransferWaitsForTheRunningJob() {
    handOverMidRun("transfer", "job", a -> election(a).transfer("b"));
  }

  @Test
  void closingTheContextWaitsForTheRunningJob() {
    handOverMidRun("close", "job", AssertableApplicationContext::close);
  }

  @Test
  void resignWaitsForTheRunningTask() {
    handOverMidRun("task", "task", a -> election(a).resign());
  }

  private void handOverMidRun(
      String prefix, String kind, Consumer<AssertableApplicationContext> handOver) {
    String office = freshOffice(prefix);
    instance(office, "a")
        .withPropertyValues("jobs.kind=" + kind)
        .run(
            a -> {
              assertThat(a).hasNotFailed();
              assertThat(election(a).awaitLeadership(WAIT)).isTrue();
              instance(office, "b")
                  .withPropertyValues("jobs.kind=" + kind)
                  .run(
                      b -> {
                        assertThat(b).hasNotFailed();
                        await().atMost(WAIT).until(() -> running(office, "a").isPresent());
                        Run cut = running(office, "a").orElseThrow();
                        long asked = System.nanoTime();
                        handOver.accept(a);
                        await().atMost(WAIT).until(() -> election(b).isLeader());
                        long handedOver = System.nanoTime() - asked;
                        await().atMost(WAIT).until(() -> first(office, "b").isPresent());

                        Run old = ended(cut);
                        Run next = first(office, "b").orElseThrow();
                        assertThat(old.ended)
                            .as("the old run ended before the successor's first run started")
                            .isLessThan(next.started);
                        assertThat(runs(office, "a"))
                            .allMatch(run -> run.ended > 0 && run.ended < next.started);
                        // The bound bean: stopped after the run ended, started on b after that.
                        await().atMost(WAIT).until(() -> BoundBean.last(office, "b", "start") > 0);
                        long stopped = BoundBean.last(office, "a", "stop");
                        assertThat(stopped).isGreaterThan(old.ended);
                        assertThat(BoundBean.last(office, "b", "start")).isGreaterThan(stopped);
                        System.out.printf(
                            "hand-over by %s with a running %s: %d ms from the ask to b"
                                + " leading (the run had %d ms left)%n",
                            prefix,
                            kind,
                            handedOver / 1_000_000,
                            Math.max(0, (old.ended - asked) / 1_000_000));
                        if (kind.equals("job") && !prefix.equals("close")) {
                          assertThat(a.getBean(LeaderOnlyJobs.class).lastRuns(office))
                              .singleElement()
                              .extracting(JobRecord::outcome)
                              .isEqualTo(JobRecord.Outcome.DONE);
                        }
                      });
            });
  }

  private static Election election(AssertableApplicationContext context) {
    return context.getBean(Election.class);
  }

  private static List<Run> runs(String office, String id) {
    return runs.stream().filter(r -> r.office.equals(office) && r.id.equals(id)).toList();
  }

  private static Optional<Run> running(String office, String id) {
    return runs(office, id).stream().filter(run -> run.ended == 0).findFirst();
  }

  private static Optional<Run> first(String office, String id) {
    return runs(office, id).stream().findFirst();
  }

  private static Run ended(Run run) {
    await().atMost(WAIT).until(() -> run.ended > 0);
    return run;
  }

  /** One run of the job: ended is 0 while it runs. */
  static final class Run {

    final String office;

    final String id;

    final long started = System.nanoTime();

    volatile long ended;

    Run(String office, String id) {
      this.office = office;
      this.id = id;
    }
  }

  /** A lifecycle bean bound to the office (a message listener container, say). */
  static final class BoundBean implements Lifecycle {

    /** "office id start|stop" and when, for every instance. */
    private static final List<String> events = new CopyOnWriteArrayList<>();

    private final String office;

    private final String id;

    private volatile boolean running;

    BoundBean(String office, String id) {
      this.office = office;
      this.id = id;
    }

    @Override
    public void start() {
      this.running = true;
      events.add(this.office + " " + this.id + " start " + System.nanoTime());
    }

    @Override
    public void stop() {
      events.add(this.office + " " + this.id + " stop " + System.nanoTime());
      this.running = false;
    }

    @Override
    public boolean isRunning() {
      return this.running;
    }

    /** When {@code id}'s bean of {@code office} last did {@code what}; 0 if it never did. */
    static long last(String office, String id, String what) {
      String prefix = office + " " + id + " " + what + " ";
      return events.stream()
          .filter(e -> e.startsWith(prefix))
          .mapToLong(e -> Long.parseLong(e.substring(prefix.length())))
          .max()
          .orElse(0);
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableScheduling
  static class Jobs {

    @Bean
    BoundBean consumer(
        @Value("${conch.office}") String office, @Value("${conch.candidate.id}") String id) {
      return new BoundBean(office, id);
    }

    @Bean
    Job job(
        @Value("${conch.candidate.id}") String id,
        @Value("${jobs.kind}") String kind,
        LeaderOnlyTasks tasks) {
      return new Job(id, kind, tasks);
    }
  }

  /** Every 200 ms, 500 ms of work: most of the time a run is under way. */
  static class Job {

    private final String id;

    private final String kind;

    private final LeaderOnlyTasks tasks;

    Job(String id, String kind, LeaderOnlyTasks tasks) {
      this.id = id;
      this.kind = kind;
      this.tasks = tasks;
    }

    /** The task's schedule: its firings are guarded by the task, not by an annotation. */
    @Scheduled(fixedRate = 200)
    void tick() {
      if (this.kind.equals("task")) {
        this.tasks.run("", "billing", this::body);
      }
    }

    @Scheduled(fixedRate = 200)
    @LeaderOnly(misfire = Misfire.SKIP)
    public void work() {
      if (this.kind.equals("job")) {
        body();
      }
    }

    private void body() {
      Run run = new Run(CurrentLeadership.get().office(), this.id);
      runs.add(run);
      try {
        Thread.sleep(500);
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
      } finally {
        run.ended = System.nanoTime();
      }
    }
  }
}
