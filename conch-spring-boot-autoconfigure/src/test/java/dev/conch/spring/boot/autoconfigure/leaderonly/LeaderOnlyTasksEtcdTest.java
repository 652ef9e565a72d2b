package dev.conch.spring.boot.autoconfigure.leaderonly;

import static dev.conch.spring.boot.autoconfigure.ConchTestSupport.freshOffice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.State;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.leaderonly.CurrentLeadership;
import dev.conch.spring.leaderonly.LeaderOnlyTasks;
import dev.conch.test.EtcdExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * A task scheduled at run time through {@link LeaderOnlyTasks#scheduler} on two instances against a
 * real etcd member: both schedule it, only the leader runs its firings, with its token, and the
 * other instance runs them once the leader shut down.
 */
@Timeout(120)
class LeaderOnlyTasksEtcdTest {

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private static final Duration WAIT = Duration.ofSeconds(20);

  /** Every firing that ran, on either instance, as "office id token". */
  private static final List<String> runs = new CopyOnWriteArrayList<>();

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ConchAutoConfiguration.class, LeaderOnlyAutoConfiguration.class))
          .withUserConfiguration(Scheduling.class)
          .withPropertyValues("conch.ttl=30s", "conch.etcd.timeout=2s");

  private ApplicationContextRunner instance(String office, String id) {
    return this.contextRunner.withPropertyValues(
        "conch.etcd.endpoints=" + etcd.cluster().endpoints(),
        "conch.office=" + office,
        "conch.candidate.id=" + id);
  }

  @Test
  void scheduledTaskRunsOnTheLeaderOnlyAndMovesWithTheOffice() {
    String office = freshOffice("tasks");
    instance(office, "a")
        .run(
            a -> {
              Election first = a.getBean(Election.class);
              assertThat(first.awaitLeadership(WAIT)).isTrue();
              long token = first.token().orElseThrow();
              instance(office, "b")
                  .run(
                      b -> {
                        Election second = b.getBean(Election.class);
                        await().atMost(WAIT).until(() -> second.state() == State.FOLLOWING);
                        // b schedules its firings too: each one from now on is skipped there.
                        int seen = runsOf(office).size();
                        await().atMost(WAIT).until(() -> runsOf(office).size() >= seen + 5);
                        assertThat(runsOf(office)).allMatch(r -> r.equals("a " + token));
                        a.close();
                        assertThat(second.awaitLeadership(WAIT)).isTrue();
                        long next = second.token().orElseThrow();
                        assertThat(next).isGreaterThan(token);
                        await().atMost(WAIT).until(() -> runsOf(office).contains("b " + next));
                        assertThat(runsOf(office))
                            .filteredOn(r -> r.startsWith("b "))
                            .allMatch(r -> r.equals("b " + next));
                      });
            });
  }

  private static List<String> runsOf(String office) {
    String prefix = office + " ";
    return runs.stream()
        .filter(r -> r.startsWith(prefix))
        .map(r -> r.substring(prefix.length()))
        .toList();
  }

  @Configuration(proxyBeanMethods = false)
  static class Scheduling {

    @Bean
    ThreadPoolTaskScheduler taskScheduler() {
      ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
      scheduler.setThreadNamePrefix("tasks-etcd-");
      return scheduler;
    }

    @Bean
    Ticks ticks(
        LeaderOnlyTasks leaderOnly,
        ThreadPoolTaskScheduler taskScheduler,
        @Value("${conch.office}") String office,
        @Value("${conch.candidate.id}") String id) {
      return new Ticks(leaderOnly.scheduler(taskScheduler, office, "tick"), id);
    }
  }

  /** Schedules a task once the context's singletons exist, as an application does at run time. */
  static class Ticks implements SmartInitializingSingleton {

    private final TaskScheduler scheduler;

    private final String id;

    Ticks(TaskScheduler scheduler, String id) {
      this.scheduler = scheduler;
      this.id = id;
    }

    @Override
    public void afterSingletonsInstantiated() {
      this.scheduler.scheduleAtFixedRate(
          () -> {
            var term = CurrentLeadership.get();
            runs.add(term.office() + " " + this.id + " " + term.token());
          },
          Duration.ofMillis(100));
    }
  }
}
