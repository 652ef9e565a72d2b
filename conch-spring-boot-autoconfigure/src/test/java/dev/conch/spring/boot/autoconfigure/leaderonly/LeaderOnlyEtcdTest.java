package dev.conch.spring.boot.autoconfigure.leaderonly;

import static dev.conch.spring.boot.autoconfigure.ConchTestSupport.freshOffice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.State;
import dev.conch.spring.Elections;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.leaderonly.CurrentLeadership;
import dev.conch.spring.leaderonly.LeaderOnly;
import dev.conch.test.EtcdExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * {@code @Scheduled @LeaderOnly} jobs on two instances against a real etcd member: the job runs on
 * the leader only, with its token, and moves to the other instance when the leader shuts down; a
 * job with an office of its own is elected on the same session as the default office.
 */
@Timeout(120)
class LeaderOnlyEtcdTest {

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private static final Duration WAIT = Duration.ofSeconds(20);

  /** Every run of every instance's jobs, as "id office token". */
  private static final List<String> runs = new CopyOnWriteArrayList<>();

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ConchAutoConfiguration.class, LeaderOnlyAutoConfiguration.class))
          .withUserConfiguration(Jobs.class)
          // First come, first served: the fair share would move one of the two offices.
          .withPropertyValues(
              "conch.ttl=30s", "conch.etcd.timeout=2s", "conch.balance.enabled=false");

  private ApplicationContextRunner instance(String office, String id) {
    return this.contextRunner.withPropertyValues(
        "conch.etcd.endpoints=" + etcd.cluster().endpoints(),
        "conch.office=" + office,
        "jobs.office=" + office + "-cron",
        "conch.candidate.id=" + id);
  }

  @Test
  void scheduledJobRunsOnTheLeaderOnlyAndMovesWithTheOffice() {
    String office = freshOffice("jobs");
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
                        int seen = runs.size();
                        await().atMost(WAIT).until(() -> runsOf(office).size() >= 5);
                        assertThat(runsOf(office)).allMatch(r -> r.equals("a " + token));
                        a.close();
                        assertThat(second.awaitLeadership(WAIT)).isTrue();
                        long next = second.token().orElseThrow();
                        assertThat(next).isGreaterThan(token);
                        await().atMost(WAIT).until(() -> runsOf(office).contains("b " + next));
                        // A copy: b's job still runs, and a view of a growing list throws.
                        List<String> since = List.copyOf(runs);
                        assertThat(since.subList(seen, since.size()))
                            .filteredOn(r -> r.startsWith(office + " b "))
                            .allMatch(r -> r.equals(office + " b " + next));
                      });
            });
  }

  @Test
  void jobWithAnOfficeOfItsOwnIsElectedOnTheSharedSession() {
    String office = freshOffice("jobs");
    instance(office, "a")
        .run(
            a -> {
              Elections elections = a.getBean(Elections.class);
              assertThat(elections.offices()).contains(office, office + "-cron");
              Election cron = elections.get(office + "-cron");
              assertThat(cron.awaitLeadership(WAIT)).isTrue();
              Election main = elections.get(office);
              assertThat(main.awaitLeadership(WAIT)).isTrue();
              assertThat(cron.leadership().orElseThrow().lease())
                  .isEqualTo(main.leadership().orElseThrow().lease());
              long token = cron.token().orElseThrow();
              await().atMost(WAIT).until(() -> runs.contains(office + "-cron a " + token));
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
  @EnableScheduling
  static class Jobs {

    @Bean
    Job job(@Value("${conch.candidate.id}") String id) {
      return new Job(id);
    }
  }

  static class Job {

    private final String id;

    Job(String id) {
      this.id = id;
    }

    @Scheduled(fixedRate = 100)
    @LeaderOnly
    void everyTenthOfASecond() {
      var term = CurrentLeadership.get();
      runs.add(term.office() + " " + this.id + " " + term.token());
    }

    @Scheduled(cron = "* * * * * *")
    @LeaderOnly("${jobs.office}")
    void everySecond() {
      var term = CurrentLeadership.get();
      runs.add(term.office() + " " + this.id + " " + term.token());
    }
  }
}
