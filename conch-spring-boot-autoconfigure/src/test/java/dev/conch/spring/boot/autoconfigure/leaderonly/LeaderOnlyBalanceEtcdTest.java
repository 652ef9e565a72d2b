package dev.conch.spring.boot.autoconfigure.leaderonly;

import static dev.conch.spring.boot.autoconfigure.ConchTestSupport.freshOffice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.State;
import dev.conch.spring.Elections;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.leaderonly.LeaderOnly;
import dev.conch.spring.leaderonly.LeaderOnlyTasks;
import dev.conch.test.EtcdExtension;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A running {@code @LeaderOnly} call, or {@link LeaderOnlyTasks} task, holds its office against the
 * fair share ({@code conch.balance.*}), against a real etcd member: the office whose call ends is
 * the one that moves.
 */
@Timeout(120)
class LeaderOnlyBalanceEtcdTest {

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private static final Duration WAIT = Duration.ofSeconds(30);

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ConchAutoConfiguration.class, LeaderOnlyAutoConfiguration.class))
          .withBean(Jobs.class)
          .withPropertyValues("conch.etcd.timeout=2s", "conch.balance.delay=300ms");

  private ApplicationContextRunner instance(String prefix, String id) {
    return this.contextRunner.withPropertyValues(
        "conch.etcd.endpoints=" + etcd.cluster().endpoints(),
        "conch.balance.group=" + prefix,
        "jobs.x=" + prefix + "-x",
        // y is no annotation's: a LeaderOnlyTasks task runs in it.
        "conch.offices." + prefix + "-y.hook-timeout=30s",
        "conch.candidate.id=" + id);
  }

  @Test
  void officeWithARunningCallStaysAndTheOneWhoseCallEndedMoves() {
    String prefix = freshOffice("busy");
    String x = prefix + "-x";
    String y = prefix + "-y";
    instance(prefix, "a")
        .run(
            a -> {
              assertThat(a).hasNotFailed();
              await().atMost(WAIT).until(() -> leads(a, x) && leads(a, y));
              Jobs jobs = a.getBean(Jobs.class);
              CountDownLatch releaseX = new CountDownLatch(1);
              CountDownLatch releaseY = new CountDownLatch(1);
              CompletableFuture<Void> callX = CompletableFuture.runAsync(() -> jobs.x(releaseX));
              LeaderOnlyTasks tasks = a.getBean(LeaderOnlyTasks.class);
              CompletableFuture<Void> callY =
                  CompletableFuture.runAsync(
                      () -> tasks.run(y, "y", () -> jobs.hold("y", releaseY)));
              try {
                await().atMost(WAIT).until(() -> jobs.running().containsAll(Set.of("x", "y")));
                instance(prefix, "b")
                    .run(
                        b -> {
                          assertThat(b).hasNotFailed();
                          await()
                              .atMost(WAIT)
                              .until(
                                  () ->
                                      state(b, x) == State.FOLLOWING
                                          && state(b, y) == State.FOLLOWING);
                          // Two offices, two members: one should move, but both are busy.
                          await()
                              .during(Duration.ofSeconds(2))
                              .atMost(WAIT)
                              .until(() -> leads(a, x) && leads(a, y));

                          releaseX.countDown();
                          await().atMost(WAIT).until(() -> leads(b, x));
                          assertThat(leads(a, y)).isTrue();
                          assertThat(jobs.running()).containsExactly("y");

                          releaseY.countDown();
                          await()
                              .during(Duration.ofSeconds(1))
                              .atMost(WAIT)
                              .until(() -> leads(a, y) && leads(b, x) && !leads(a, x));
                        });
              } finally {
                releaseX.countDown();
                releaseY.countDown();
                callX.get(10, TimeUnit.SECONDS);
                callY.get(10, TimeUnit.SECONDS);
              }
            });
  }

  private static boolean leads(AssertableApplicationContext context, String office) {
    return context.getBean(Elections.class).get(office).isLeader();
  }

  private static State state(AssertableApplicationContext context, String office) {
    return context.getBean(Elections.class).find(office).map(Election::state).orElse(State.CLOSED);
  }

  /** A leader-only job that runs until released, and the work of a task that does. */
  static class Jobs {

    private final Set<String> running = ConcurrentHashMap.newKeySet();

    /**
     * The jobs running now (a method: the bean is a class-based proxy, its fields are not used).
     */
    public Set<String> running() {
      return this.running;
    }

    @LeaderOnly("${jobs.x}")
    public void x(CountDownLatch release) {
      hold("x", release);
    }

    public void hold(String job, CountDownLatch release) {
      this.running.add(job);
      try {
        release.await(60, TimeUnit.SECONDS);
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
      } finally {
        this.running.remove(job);
      }
    }
  }
}
