package dev.conch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Nothing the loop waits for holds it forever, and no command does silently nothing: a gate that
 * does not answer, a resign that overran its bound. On a store the test scripts; the hook timeout
 * is 1 s.
 */
@Timeout(60)
class FencedElectionBoundsTest {

  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
  private static final Duration WAIT = Duration.ofSeconds(20);

  private final AtomicLong now = new AtomicLong(1_000 * SECOND);
  private final ScriptedLock lock = new ScriptedLock("jobs", now::get);

  /** Released at the end: what the gate and hooks below block on, deaf to interrupts. */
  private final CountDownLatch endOfTest = new CountDownLatch(1);

  private final AtomicInteger gateCalls = new AtomicInteger();
  private final AtomicBoolean gateInterrupted = new AtomicBoolean();
  private Election election;

  @AfterEach
  void close() {
    endOfTest.countDown();
    if (election != null) {
      election.close();
    }
  }

  private Election election(Gate gate, Duration hookTimeout) {
    election =
        new FencedElection(
            lock,
            ElectionOptions.builder("jobs")
                .hookTimeout(hookTimeout)
                .retryInitial(Duration.ofMillis(50))
                .retryMax(Duration.ofMillis(100))
                .gate(gate)
                .build(),
            now::get,
            Clock.systemUTC());
    return election;
  }

  /** A gate that never answers, deaf to interrupts (it notes the first). */
  private Gate.Decision stuck(String office) {
    gateCalls.incrementAndGet();
    while (true) {
      try {
        endOfTest.await();
        return Gate.Decision.allow();
      } catch (InterruptedException e) {
        gateInterrupted.set(true);
      }
    }
  }

  /** Blocks until the test ends, deaf to interrupts. */
  private void blockUntilTheEnd() {
    while (true) {
      try {
        endOfTest.await();
        return;
      } catch (InterruptedException e) {
        // deaf
      }
    }
  }

  @Test
  void resignCutsAGateCheckShortAndLeaves() {
    Election candidate = election(this::stuck, ElectionOptions.DEFAULT_HOOK_TIMEOUT);
    candidate.start();
    await().atMost(WAIT).until(() -> gateCalls.get() == 1);

    candidate.resign();

    assertThat(candidate.state()).isEqualTo(State.RESIGNED);
    await().atMost(WAIT).untilTrue(gateInterrupted);
    assertThat(lock.attempts).hasValue(0);
  }

  @Test
  void gateThatDoesNotAnswerWithinTheHookTimeoutDeniesAndIsAwaitedAgainNotAskedAgain() {
    EventLog log = new EventLog();
    Election candidate = election(this::stuck, Duration.ofSeconds(1));
    candidate.addListener(log);
    candidate.start();

    await().atMost(WAIT).until(() -> log.events(ElectionEvent.Denied.class).size() >= 2);
    assertThat(log.events(ElectionEvent.Denied.class).get(0).reason())
        .isEqualTo("gate did not answer within the hook timeout (1s)");
    assertThat(candidate.state()).isEqualTo(State.DENIED);
    assertThat(gateInterrupted).isTrue();
    // The first check still runs: it is awaited again, not a second thread asked anew.
    assertThat(gateCalls).hasValue(1);
    assertThat(lock.attempts).hasValue(0);
  }

  @Test
  void startAfterAResignThatOverranItsBoundFailsClearlyAndWorksOnceItFinished() throws Exception {
    Election candidate = election(Gate.OPEN, Duration.ofSeconds(1));
    AtomicInteger acquired = new AtomicInteger();
    candidate.addHandler(
        new LeadershipHandler() {
          @Override
          public void acquired(Leadership leadership) {
            acquired.incrementAndGet();
          }

          @Override
          public void lost(Leadership leadership, LossReason reason) {
            if (acquired.get() == 1) {
              blockUntilTheEnd(); // the hook timeout is on the election's clock, which stands still
            }
          }
        });
    candidate.start();
    assertThat(candidate.awaitLeadership(WAIT)).isTrue();
    CompletableFuture<Void> left = candidate.resignAsync();

    assertThatThrownBy(candidate::start)
        .isInstanceOf(ConchException.class)
        // 2 hooks x 1 s + the stop timeout (1 s: leader-only work) + 10 s for the release
        .hasMessageContaining("office 'jobs': the last resign has not finished within 13s")
        .hasMessageContaining("call start() again once it has");

    endOfTest.countDown();
    left.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    candidate.start();
    assertThat(candidate.awaitLeadership(WAIT)).isTrue();
    assertThat(acquired).hasValue(2);
  }
}
