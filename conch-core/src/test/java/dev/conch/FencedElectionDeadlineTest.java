package dev.conch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The failing-closed rule on an injected clock: leadership is believed only until the lease
 * deadline minus the loss lead (stop timeout + safety margin), whatever the store says.
 */
class FencedElectionDeadlineTest {

  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

  private final AtomicLong now = new AtomicLong(1_000 * SECOND);
  private final ScriptedLock lock = new ScriptedLock("jobs", now::get);
  private final Election election =
      new FencedElection(
          lock,
          ElectionOptions.builder("jobs")
              .stopTimeout(Duration.ofSeconds(2))
              .safetyMargin(Duration.ofSeconds(1))
              .build(),
          now::get,
          Clock.systemUTC());

  @AfterEach
  void close() {
    election.close();
  }

  @Test
  void leadershipEndsTheLossLeadBeforeTheDeadlineAndLoseHooksRun() throws Exception {
    EventLog log = EventLog.of(election);
    lock.validUntil = now.get() + 10 * SECOND;
    election.start();
    assertThat(election.awaitLeadership(Duration.ofSeconds(5))).isTrue();

    now.addAndGet(6 * SECOND); // 4 s left: more than the 3 s lead
    assertThat(election.isLeader()).isTrue();

    now.addAndGet(SECOND + 1); // 3 s - 1 ns left: inside the lead
    assertThat(election.isLeader()).isFalse(); // believed no more, even before the loop reacts
    await().atMost(Duration.ofSeconds(5)).until(() -> log.hooks().contains("lost:RENEWAL_FAILED"));
    assertThat(log.events(ElectionEvent.Lost.class))
        .extracting(ElectionEvent.Lost::reason)
        .containsExactly(LossReason.RENEWAL_FAILED);
    assertThat(lock.released).hasValue(1);
  }

  @Test
  void renewalThatMovesTheDeadlineKeepsLeadership() throws Exception {
    lock.validUntil = now.get() + 10 * SECOND;
    election.start();
    assertThat(election.awaitLeadership(Duration.ofSeconds(5))).isTrue();

    now.addAndGet(6 * SECOND);
    lock.validUntil = now.get() + 10 * SECOND; // renewed
    now.addAndGet(6 * SECOND);

    assertThat(election.isLeader()).isTrue();
    assertThat(election.state()).isEqualTo(State.LEADING);
  }
}
