package dev.conch.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionEvent;
import dev.conch.ElectionOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every election of a process delivers its events on the same two threads. A listener that blocks
 * (an application's, or one of conch's own waiting for an executor) must hold up its own office's
 * events only: once two did, no other office of the process heard of anything again.
 */
@Timeout(60)
class SlowListenerTest {

  private static final Duration WAIT = Duration.ofSeconds(20);

  private final LocalOffices offices = new LocalOffices();

  @Test
  void listenersThatBlockHoldUpOnlyTheirOwnOfficesEvents() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch blocked = new CountDownLatch(3);
    List<Election> elections = new ArrayList<>();
    try {
      // Three offices whose listeners block on their first event: more than the event threads.
      for (String office : List.of("slow-1", "slow-2", "slow-3")) {
        Election slow = offices.election(ElectionOptions.builder(office).build());
        elections.add(slow);
        slow.addListener(
            event -> {
              blocked.countDown();
              hold(release);
            });
        slow.start();
      }
      assertThat(blocked.await(WAIT.toMillis(), TimeUnit.MILLISECONDS))
          .as("each slow office's listener was called")
          .isTrue();

      Election other = offices.election(ElectionOptions.builder("other").build());
      elections.add(other);
      List<ElectionEvent> heard = new CopyOnWriteArrayList<>();
      other.addListener(heard::add);
      other.start();

      await()
          .atMost(WAIT)
          .untilAsserted(() -> assertThat(heard).anyMatch(ElectionEvent.Leading.class::isInstance));
    } finally {
      release.countDown();
      for (Election election : elections) {
        election.close();
      }
    }
    // The threads lent for the slow calls go once idle (ten seconds): none is left behind.
    await().atMost(WAIT).untilAsserted(() -> assertThat(eventThreads()).isLessThanOrEqualTo(2));
  }

  @Test
  void aThreadLentForASlowListenerCallLeavesWhileEventsKeepComing() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    Election slow = offices.election(ElectionOptions.builder("slow").build());
    slow.addListener(event -> hold(release));
    List<Election> busy = new ArrayList<>();
    for (String office : List.of("busy-1", "busy-2", "busy-3")) {
      Election election = offices.election(ElectionOptions.builder(office).build());
      election.addListener(event -> {});
      busy.add(election);
    }
    AtomicBoolean stop = new AtomicBoolean();
    Thread churn =
        new Thread(
            () -> {
              // Events of three offices all the while, each office's delivered on its own: they
              // keep every event thread busy in turn.
              try {
                while (!stop.get()) {
                  for (Election election : busy) {
                    election.resign();
                    election.start();
                  }
                  TimeUnit.MILLISECONDS.sleep(5); // a pace, not a wait for a state
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "test-churn");
    try {
      slow.start();
      churn.start();
      await().atMost(WAIT).until(() -> eventThreads() > 2); // lent beside the slow call
      release.countDown();
      // Once the slow call has returned, the lent thread leaves; the idle timeout alone would
      // never end it while the events keep every thread busy in turn.
      await().atMost(WAIT).until(() -> eventThreads() <= 2);
    } finally {
      release.countDown();
      stop.set(true);
      churn.join(WAIT.toMillis());
      slow.close();
      busy.forEach(Election::close);
    }
  }

  private static long eventThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("conch-events"))
        .count();
  }

  private static void hold(CountDownLatch latch) {
    try {
      latch.await(WAIT.toMillis() * 2, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
