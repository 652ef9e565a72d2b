package dev.conch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.local.LocalOffices;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An election given a thread factory for its hooks runs each acquire and lose hook on a thread of
 * that factory, named after the office, and still interrupts one that overruns its timeout there.
 */
@Timeout(60)
class HookThreadsTest {

  private final LocalOffices offices = new LocalOffices();

  private final List<Thread> made = new CopyOnWriteArrayList<>();

  private final ThreadFactory factory =
      task -> {
        Thread thread = new Thread(task);
        thread.setDaemon(true);
        this.made.add(thread);
        return thread;
      };

  @Test
  void hooksRunOnThreadsOfTheFactoryNamedAfterTheOffice() throws InterruptedException {
    List<Thread> ran = new CopyOnWriteArrayList<>();
    try (Election election =
        this.offices.election(
            ElectionOptions.builder("reports").hookThreads(this.factory).build())) {
      election.addHandler(
          new LeadershipHandler() {
            @Override
            public void acquired(Leadership leadership) {
              ran.add(Thread.currentThread());
            }

            @Override
            public void lost(Leadership leadership, LossReason reason) {
              ran.add(Thread.currentThread());
            }
          });
      election.start();
      assertThat(election.awaitLeadership(Duration.ofSeconds(10))).isTrue();
      this.offices.revoke("reports");
      await().atMost(Duration.ofSeconds(10)).until(() -> ran.size() >= 2);
    }
    assertThat(ran)
        .allSatisfy(
            thread -> {
              assertThat(this.made).contains(thread);
              assertThat(thread.getName()).isEqualTo("conch-hooks-reports");
            });
  }

  @Test
  void anOverrunningHookIsInterruptedOnItsThread() throws InterruptedException {
    List<Thread> interrupted = new CopyOnWriteArrayList<>();
    try (Election election =
        this.offices.election(
            ElectionOptions.builder("slow")
                .hookTimeout(Duration.ofMillis(300))
                .hookThreads(this.factory)
                .build())) {
      election.addHandler(
          new LeadershipHandler() {
            @Override
            public void acquired(Leadership leadership) throws InterruptedException {
              try {
                Thread.sleep(60_000);
              } catch (InterruptedException ex) {
                interrupted.add(Thread.currentThread());
                throw ex;
              }
            }
          });
      election.start();
      await().atMost(Duration.ofSeconds(10)).until(() -> !interrupted.isEmpty());
    }
    assertThat(this.made).contains(interrupted.get(0));
  }
}
