package dev.conch.spring.boot.autoconfigure.leaderonly;

import static dev.conch.spring.boot.autoconfigure.ConchTestSupport.freshOffice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.State;
import dev.conch.etcd.EtcdSession;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.leaderonly.CurrentLeadership;
import dev.conch.spring.leaderonly.EtcdJobRecords;
import dev.conch.spring.leaderonly.JobRecord;
import dev.conch.spring.leaderonly.LeaderOnly;
import dev.conch.spring.leaderonly.Misfire;
import dev.conch.test.EtcdExtension;
import dev.conch.test.Etcdctl;
import dev.conch.test.TcpProxy;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * Missed firings against a real etcd member: a leader cut off from etcd just after a run (its lease
 * left to expire, as after a crash) leaves the office vacant over the next firings; the next leader
 * runs the latest of them once, after the lease expired, and nobody claims a firing twice. A leader
 * frozen between its leadership check and its claim, whose term ended meanwhile, finds its claim
 * refused by etcd and does not run the firing the next leader ran.
 */
@Timeout(120)
class MisfireEtcdTest {

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private static final Duration WAIT = Duration.ofSeconds(30);

  /** Every run of every instance's job, as "office id token". */
  private static final List<String> runs = new CopyOnWriteArrayList<>();

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  MetricsAutoConfiguration.class,
                  ConchAutoConfiguration.class,
                  LeaderOnlyAutoConfiguration.class))
          .withUserConfiguration(Jobs.class)
          .withPropertyValues("conch.ttl=3s", "conch.etcd.timeout=1s");

  private ApplicationContextRunner instance(String office, String id, String endpoints) {
    return this.contextRunner.withPropertyValues(
        "conch.etcd.endpoints=" + endpoints, "conch.office=" + office, "conch.candidate.id=" + id);
  }

  @Test
  void nextLeaderRunsTheLatestFiringMissedWhileTheOfficeWasVacantOnceAfterTheLeaseExpired() {
    String office = freshOffice("misfire");
    try (TcpProxy proxy = TcpProxy.start("127.0.0.1", etcd.cluster().member(0).clientPort())) {
      instance(office, "a", proxy.endpoint())
          .run(
              a -> {
                Election first = a.getBean(Election.class);
                assertThat(first.awaitLeadership(WAIT)).isTrue();
                instance(office, "b", etcd.cluster().endpoints())
                    .run(
                        b -> {
                          Election second = b.getBean(Election.class);
                          await().atMost(WAIT).until(() -> second.state() == State.FOLLOWING);
                          RecordingJobRecords recordsA = a.getBean(RecordingJobRecords.class);
                          RecordingJobRecords recordsB = b.getBean(RecordingJobRecords.class);
                          // Cut off just after a run ended: the next firing is a second away.
                          int done = doneRuns(recordsA);
                          await().atMost(WAIT).until(() -> doneRuns(recordsA) > done);
                          proxy.blackhole();
                          Instant cut = Instant.now();
                          List<String> runsOfA = runsOf(office, "a");

                          assertThat(second.awaitLeadership(WAIT)).isTrue();
                          long token = second.token().orElseThrow();
                          await()
                              .atMost(WAIT)
                              .until(() -> count(b, office, "misfire_recovered") == 1);

                          JobRecord recovered = recordsB.claims().get(0);
                          assertThat(recovered.token()).isEqualTo(token);
                          // A firing of the vacancy, after A's last run, run after B won.
                          JobRecord lastOfA = lastClaim(recordsA);
                          assertThat(recovered.scheduled()).isAfter(lastOfA.scheduled());
                          assertThat(recovered.scheduled()).isBefore(recovered.started());
                          assertThat(recovered.started()).isAfter(cut.plusSeconds(1));
                          await()
                              .atMost(WAIT)
                              .until(() -> doneScheduled(recordsB, recovered.scheduled()));
                          assertThat(count(b, office, "misfire_recovered")).isEqualTo(1.0);
                          // A claimed and ran nothing after the cut; no firing was claimed twice.
                          assertThat(runsOf(office, "a")).isEqualTo(runsOfA);
                          assertThat(recordsA.claims()).allMatch(c -> c.started().isBefore(cut));
                          List<Instant> claimed =
                              java.util.stream.Stream.concat(
                                      recordsA.claims().stream(), recordsB.claims().stream())
                                  .map(JobRecord::scheduled)
                                  .toList();
                          assertThat(claimed).doesNotHaveDuplicates();
                        });
              });
    }
  }

  @Test
  void frozenLeaderWhoseTermEndedCannotClaimTheFiringAndDoesNotRunIt() {
    String office = freshOffice("frozen");
    instance(office, "a", etcd.cluster().endpoints())
        .run(
            a -> {
              Election first = a.getBean(Election.class);
              assertThat(first.awaitLeadership(WAIT)).isTrue();
              long tokenA = first.token().orElseThrow();
              String lease = first.leadership().orElseThrow().leaseHex();
              instance(office, "b", etcd.cluster().endpoints())
                  .run(
                      b -> {
                        Election second = b.getBean(Election.class);
                        await().atMost(WAIT).until(() -> second.state() == State.FOLLOWING);
                        RecordingJobRecords recordsA = a.getBean(RecordingJobRecords.class);
                        int done = doneRuns(recordsA);
                        await().atMost(WAIT).until(() -> doneRuns(recordsA) > done);
                        // Frozen at its next firing, after it checked that it leads.
                        recordsA.pauseNextClaim();
                        await().atMost(WAIT).until(recordsA::paused);
                        List<String> runsOfA = runsOf(office, "a");
                        // Its term ends while it is frozen: the lease is gone, B leads.
                        assertThat(
                                Etcdctl.run(
                                        etcd.cluster().endpoints(),
                                        Duration.ofSeconds(10),
                                        "lease",
                                        "revoke",
                                        lease)
                                    .succeeded())
                            .isTrue();
                        assertThat(second.awaitLeadership(WAIT)).isTrue();
                        await()
                            .atMost(WAIT)
                            .until(() -> count(b, office, "misfire_recovered") == 1);
                        int refusedBefore = recordsA.refused().size();
                        recordsA.resume();

                        await().atMost(WAIT).until(() -> recordsA.refused().size() > refusedBefore);
                        assertThat(recordsA.refused())
                            .anyMatch(
                                r ->
                                    r.token() == tokenA
                                        && r.outcome() == JobRecord.Outcome.RUNNING);
                        await().atMost(WAIT).until(() -> !first.isLeader());
                        assertThat(runsOf(office, "a")).isEqualTo(runsOfA);
                        assertThat(
                                recordsA.claims().stream().filter(c -> c.token() == tokenA).count())
                            .isEqualTo(
                                recordsA.writes.stream()
                                    .filter(
                                        w ->
                                            w.taken()
                                                && w.record().outcome()
                                                    != JobRecord.Outcome.RUNNING)
                                    .count());
                      });
            });
  }

  private static int doneRuns(RecordingJobRecords records) {
    return (int)
        records.writes.stream()
            .filter(w -> w.taken() && w.record().outcome() == JobRecord.Outcome.DONE)
            .count();
  }

  private static boolean doneScheduled(RecordingJobRecords records, Instant scheduled) {
    return records.writes.stream()
        .anyMatch(
            w ->
                w.taken()
                    && w.record().outcome() == JobRecord.Outcome.DONE
                    && w.record().scheduled().equals(scheduled));
  }

  private static JobRecord lastClaim(RecordingJobRecords records) {
    List<JobRecord> claims = records.claims();
    return claims.get(claims.size() - 1);
  }

  private static double count(ApplicationContext context, String office, String outcome) {
    Counter counter =
        context
            .getBean(MeterRegistry.class)
            .find("conch.leaderonly.firings")
            .tags("conch.office", office, "conch.outcome", outcome)
            .counter();
    return (counter != null) ? counter.count() : 0;
  }

  private static List<String> runsOf(String office, String id) {
    String prefix = office + " " + id + " ";
    return runs.stream().filter(r -> r.startsWith(prefix)).toList();
  }

  @Configuration(proxyBeanMethods = false)
  @EnableScheduling
  static class Jobs {

    @Bean
    Job job(@Value("${conch.candidate.id}") String id) {
      return new Job(id);
    }

    @Bean
    RecordingJobRecords recordingJobRecords(EtcdSession etcdSession) {
      return new RecordingJobRecords(new EtcdJobRecords(etcdSession));
    }

    @Bean
    SimpleMeterRegistry meterRegistry() {
      return new SimpleMeterRegistry();
    }
  }

  static class Job {

    private final String id;

    Job(String id) {
      this.id = id;
    }

    @Scheduled(fixedRate = 1000)
    @LeaderOnly(misfire = Misfire.RUN_ONCE)
    void everySecond() {
      var term = CurrentLeadership.get();
      runs.add(term.office() + " " + this.id + " " + term.token());
    }
  }
}
