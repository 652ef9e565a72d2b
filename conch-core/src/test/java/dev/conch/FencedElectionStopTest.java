package dev.conch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * How a term stops, on a store the test scripts and an injected clock: what is known while the lose
 * hooks run, and what the candidate says meanwhile. Deadline D is 10 s after the win; the loss lead
 * is 3 s (stop timeout 2 s, safety margin 1 s); the hook timeout is 30 s.
 */
@Timeout(60)
class FencedElectionStopTest {

  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
  private static final Duration WAIT = Duration.ofSeconds(10);

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

  /** Released at the end: what the lose hooks below block on, deaf to interrupts. */
  private final CountDownLatch endOfTest = new CountDownLatch(1);

  private final List<String> hooks = new CopyOnWriteArrayList<>();

  @AfterEach
  void close() {
    endOfTest.countDown();
    election.close();
  }

  /** A handler whose lose hook notes its reason, then blocks until the test ends. */
  private LeadershipHandler slowLoseHook(String name, boolean returnsWhenInterrupted) {
    return new LeadershipHandler() {
      @Override
      public void lost(Leadership leadership, LossReason reason) {
        hooks.add(name + ":" + reason);
        boolean interrupted = false;
        while (true) {
          try {
            endOfTest.await();
            return;
          } catch (InterruptedException e) {
            if (!interrupted) {
              hooks.add(name + ":interrupted");
            }
            interrupted = true;
            if (returnsWhenInterrupted) {
              return;
            }
          }
        }
      }

      @Override
      public String toString() {
        return name;
      }
    };
  }

  private LeadershipHandler quickLoseHook(String name) {
    return new LeadershipHandler() {
      @Override
      public void lost(Leadership leadership, LossReason reason) {
        hooks.add(name + ":" + reason);
      }
    };
  }

  @Test
  void loseHookStillRunningAtTheSafetyMarginBeforeTheDeadlineIsInterruptedAndGivenUp()
      throws Exception {
    EventLog log = EventLog.of(election);
    election.addHandler(slowLoseHook("slow", false)); // deaf to interrupts
    election.start();
    assertThat(election.awaitLeadership(WAIT)).isTrue();

    now.addAndGet(7 * SECOND); // D - 3 s: renewal failed; the stop has until D - 1 s
    await().atMost(WAIT).until(() -> hooks.contains("slow:RENEWAL_FAILED"));
    assertThat(lock.released).hasValue(0);
    assertThat(hooks).doesNotContain("slow:interrupted");

    now.addAndGet(2 * SECOND); // D - 1 s, far from the 30 s hook timeout
    await().atMost(WAIT).until(() -> hooks.contains("slow:interrupted"));
    // Given up, and still running: the key is kept until D (1 s on, on the timer), so that no
    // successor leads beside it before the lease could expire.
    await().during(Duration.ofMillis(500)).atMost(WAIT).until(() -> lock.released.get() == 0);
    // Then the grant is released, the slow one still blocks.
    await().atMost(WAIT).until(() -> lock.released.get() == 1);
    assertThat(log.hooks()).containsExactly("acquired", "lost:RENEWAL_FAILED");
    assertThat(log.events(ElectionEvent.Lost.class))
        .extracting(ElectionEvent.Lost::reason)
        .containsExactly(LossReason.RENEWAL_FAILED);
  }

  @Test
  void loseHooksWhoseTurnComesAfterTheStopDeadlineAreAllCalledAtOnceAndNotWaitedFor()
      throws Exception {
    List<Boolean> interruptedAtCall = new CopyOnWriteArrayList<>();
    LeadershipHandler late =
        new LeadershipHandler() {
          @Override
          public void lost(Leadership leadership, LossReason reason) throws Exception {
            interruptedAtCall.add(Thread.currentThread().isInterrupted());
            slowLoseHook("late", false).lost(leadership, reason); // blocks, deaf to interrupts
          }
        };
    election.addHandler(late);
    election.addHandler(late);
    election.addHandler(slowLoseHook("slow", false)); // runs first: lose hooks in reverse order
    election.start();
    assertThat(election.awaitLeadership(WAIT)).isTrue();

    now.addAndGet(7 * SECOND);
    await().atMost(WAIT).until(() -> hooks.contains("slow:RENEWAL_FAILED"));
    now.addAndGet(2 * SECOND); // the stop deadline: the slow one is given up

    await().atMost(WAIT).until(() -> lock.released.get() == 1);
    // Both were called though neither returned; neither was told to abort before it began. The
    // slow hook notes its interrupt on its own thread while the late ones are being called: in
    // either order.
    await().atMost(WAIT).until(() -> hooks.size() == 4);
    assertThat(hooks).first().isEqualTo("slow:RENEWAL_FAILED");
    assertThat(hooks)
        .containsExactlyInAnyOrder(
            "slow:RENEWAL_FAILED",
            "slow:interrupted",
            "late:RENEWAL_FAILED",
            "late:RENEWAL_FAILED");
    assertThat(interruptedAtCall).containsExactly(false, false);
  }

  @Test
  void keyDeletedWhileAResignStopsUpgradesTheReasonAndInterruptsTheLoseHook() throws Exception {
    EventLog log = EventLog.of(election);
    election.addHandler(quickLoseHook("first")); // its lose hook runs last
    election.addHandler(slowLoseHook("slow", true));
    election.start();
    assertThat(election.awaitLeadership(WAIT)).isTrue();

    CompletableFuture<Void> left = election.resignAsync();
    await().atMost(WAIT).until(() -> hooks.contains("slow:RESIGNED"));
    lock.ended = LossReason.KEY_DELETED; // learned during the stop
    lock.wake();

    left.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(hooks).containsExactly("slow:RESIGNED", "slow:interrupted", "first:KEY_DELETED");
    // Listeners hear events on their own thread: the Lost event may arrive after the resign ended.
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(log.events(ElectionEvent.Lost.class))
                    .extracting(ElectionEvent.Lost::reason)
                    .containsExactly(LossReason.KEY_DELETED));
    assertThat(election.state()).isEqualTo(State.RESIGNED);
  }

  @Test
  void resignKeepsItsLoseHookRunningWhileTheLeaseIsRenewed() throws Exception {
    election.addHandler(slowLoseHook("slow", true));
    election.start();
    assertThat(election.awaitLeadership(WAIT)).isTrue();

    CompletableFuture<Void> left = election.resignAsync();
    await().atMost(WAIT).until(() -> hooks.contains("slow:RESIGNED"));
    now.addAndGet(5 * SECOND); // past the stop timeout; the key is kept until the hook returns
    lock.validUntil = now.get() + 10 * SECOND;
    lock.wake();

    await().during(Duration.ofMillis(500)).atMost(WAIT).until(() -> !left.isDone());
    endOfTest.countDown();
    left.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(hooks).containsExactly("slow:RESIGNED");
  }

  @Test
  void stateIsNotLeadingWhileTheLoseHooksOfAResignRun() throws Exception {
    election.addHandler(slowLoseHook("slow", false));
    election.start();
    assertThat(election.awaitLeadership(WAIT)).isTrue();
    assertThat(election.state()).isEqualTo(State.LEADING);

    election.resignAsync();
    await().atMost(WAIT).until(() -> hooks.contains("slow:RESIGNED"));

    assertThat(election.isLeader()).isFalse();
    assertThat(election.state()).isEqualTo(State.RESIGNED);
  }

  @Test
  void stateIsNotLeadingFromTheMomentTheDeadlineEndsTheTerm() throws Exception {
    election.start();
    assertThat(election.awaitLeadership(WAIT)).isTrue();

    now.addAndGet(7 * SECOND + 1); // inside the loss lead; the loop has not looked yet

    assertThat(election.isLeader()).isFalse();
    assertThat(election.state()).isEqualTo(State.LOST);
  }
}
