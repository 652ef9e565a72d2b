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
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(Thread.getAllStackTraces().keySet())
                    .filteredOn(t -> t.getName().startsWith("conch-events"))
                    .hasSizeLessThanOrEqualTo(2));
  }

  private static void hold(CountDownLatch latch) {
    try {
      latch.await(WAIT.toMillis() * 2, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
