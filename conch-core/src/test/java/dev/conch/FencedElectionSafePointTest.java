package dev.conch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The one safe point of every way a term ends: the term takes no new leader-only work, waits for
 * what runs, interrupts it at the stop's bound, and only then runs the lose hooks and releases the
 * key. On a store the test scripts and an injected clock: D is 10 s after the win, the loss lead 3
 * s (stop timeout 2 s, safety margin 1 s).
 */
@Timeout(60)
class FencedElectionSafePointTest {

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

  private final List<String> seen = new CopyOnWriteArrayList<>();

  /** Released by the test: what the work below blocks on. */
  private final CountDownLatch finishWork = new CountDownLatch(1);

  @AfterEach
  void close() {
    finishWork.countDown();
    election.close();
  }

  /** Leader-only work of the current term on a thread of its own, registered before it returns. */
  private CompletableFuture<Boolean> work(String name, boolean heedsInterrupts) throws Exception {
    Leadership term = election.leadership().orElseThrow();
    CompletableFuture<Boolean> interrupted = new CompletableFuture<>();
    CountDownLatch registered = new CountDownLatch(1);
    Thread thread =
        new Thread(
            () -> {
              Optional<Leadership.Work> work = term.startWork(name);
              registered.countDown();
              try (Leadership.Work running = work.orElseThrow()) {
                seen.add(name + ":running");
                boolean wasInterrupted = false;
                while (true) {
                  try {
                    finishWork.await();
                    break;
                  } catch (InterruptedException e) {
                    wasInterrupted = true;
                    seen.add(name + ":interrupted");
                    if (heedsInterrupts) {
                      break;
                    }
                  }
                }
                seen.add(name + ":returned");
                interrupted.complete(wasInterrupted || running.interrupted());
              }
            },
            "test-work-" + name);
    thread.start();
    assertThat(registered.await(10, TimeUnit.SECONDS)).isTrue();
    await().atMost(WAIT).until(() -> seen.contains(name + ":running"));
    return interrupted;
  }

  private void loseHookNotes() {
    election.addHandler(
        new LeadershipHandler() {
          @Override
          public void lost(Leadership leadership, LossReason reason) {
            seen.add("lost:" + reason + ":released=" + lock.released.get());
          }
        });
  }

  @Test
  void resignWaitsForRunningWorkThenRunsTheLoseHooksThenReleases() throws Exception {
    loseHookNotes();
    election.start();
    assertThat(election.awaitLeadership(WAIT)).isTrue();
    Leadership term = election.leadership().orElseThrow();
    CompletableFuture<Boolean> job = work("job", true);
    assertThat(term.isIdle()).isFalse();

    CompletableFuture<Void> left = election.resignAsync();
    await().atMost(WAIT).until(() -> !election.isLeader());
    // The term takes no new work, keeps the key, and runs no lose hook while the job runs.
    assertThat(term.startWork("late")).isEmpty();
    await()
        .during(Duration.ofMillis(300))
        .atMost(WAIT)
        .until(() -> lock.released.get() == 0 && seen.equals(List.of("job:running")));

    finishWork.countDown();
    left.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(job.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isFalse();
    assertThat(seen).containsExactly("job:running", "job:returned", "lost:RESIGNED:released=0");
    assertThat(lock.released).hasValue(1);
  }

  @Test
  void workStillRunningAtTheStopTimeoutIsInterruptedAndNamed() throws Exception {
    EventLog log = EventLog.of(election);
    loseHookNotes();
    election.start();
    assertThat(election.awaitLeadership(WAIT)).isTrue();
    CompletableFuture<Boolean> job = work("job", true);

    CompletableFuture<Void> left = election.resignAsync();
    await().atMost(WAIT).until(() -> !election.isLeader());
    now.addAndGet(2 * SECOND); // the stop timeout; the lease is renewed meanwhile
    lock.validUntil = now.get() + 10 * SECOND;
    lock.wake();

    left.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(job.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    // Interrupted, and not waited for after that: the lose hooks may run before it returned.
    assertThat(seen).contains("job:interrupted", "lost:RESIGNED:released=0");
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(log.events(ElectionEvent.WorkInterrupted.class))
                    .containsExactly(new ElectionEvent.WorkInterrupted("jobs", 1, List.of("job"))));
  }

  @Test
  void afterARenewalFailureWorkIsAwaitedUntilTheStopDeadlineAndTheKeyKeptUntilTheLeaseDeadline()
      throws Exception {
    loseHookNotes();
    election.start();
    assertThat(election.awaitLeadership(WAIT)).isTrue();
    work("deaf", false); // ignores interrupts

    now.addAndGet(7 * SECOND); // D - 3 s: renewal failed; the stop has until D - 1 s
    lock.wake();
    await()
        .during(Duration.ofMillis(300))
        .atMost(WAIT)
        .until(() -> seen.stream().noneMatch(s -> s.startsWith("lost")));
    assertThat(seen).containsExactly("deaf:running");

    now.addAndGet(2 * SECOND); // D - 1 s: interrupted, left behind; the lose hooks run
    lock.wake();
    await().atMost(WAIT).until(() -> seen.contains("lost:RENEWAL_FAILED:released=0"));
    assertThat(seen).contains("deaf:interrupted");
    // The work still runs: the key is not deleted before D (1 s on from here, on the timer).
    await().during(Duration.ofMillis(500)).atMost(WAIT).until(() -> lock.released.get() == 0);
    await().atMost(WAIT).until(() -> lock.released.get() == 1);
  }

  @Test
  void aKeyDeletedWhileWorkRunsInterruptsItAtOnce() throws Exception {
    loseHookNotes();
    election.start();
    assertThat(election.awaitLeadership(WAIT)).isTrue();
    CompletableFuture<Boolean> job = work("job", true);

    lock.ended = LossReason.KEY_DELETED; // a successor may lead: no grace
    lock.wake();

    assertThat(job.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    await().atMost(WAIT).until(() -> seen.contains("lost:KEY_DELETED:released=0"));
  }

  @Test
  void workThatResignsItsOwnTermDoesNotWaitForItself() throws Exception {
    loseHookNotes();
    election.start();
    assertThat(election.awaitLeadership(WAIT)).isTrue();
    Leadership term = election.leadership().orElseThrow();

    long started = System.nanoTime();
    try (Leadership.Work work = term.startWork("resigner").orElseThrow()) {
      election.resign(); // from inside the work: not a wait for itself
      assertThat(work.interrupted()).isFalse();
    }
    // Well inside the stop timeout (2 s of the test's clock, which does not move by itself).
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(WAIT);
    assertThat(seen).containsExactly("lost:RESIGNED:released=0");
    assertThat(lock.released).hasValue(1);
  }

  @Test
  void closeWaitsForRunningWorkToo() throws Exception {
    loseHookNotes();
    election.start();
    assertThat(election.awaitLeadership(WAIT)).isTrue();
    work("job", true);

    CompletableFuture<Void> closed = CompletableFuture.runAsync(election::close);
    await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> lock.released.get() == 0);
    finishWork.countDown();
    closed.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(seen).containsExactly("job:running", "job:returned", "lost:CLOSED:released=0");
  }

  @Test
  void aTermWithNoWorkRunningIsIdleAndStopsAtOnce() throws Exception {
    loseHookNotes();
    election.start();
    assertThat(election.awaitLeadership(WAIT)).isTrue();
    Leadership term = election.leadership().orElseThrow();
    try (Leadership.Work work = term.startWork("quick").orElseThrow()) {
      assertThat(term.isIdle()).isFalse();
    }
    assertThat(term.isIdle()).isTrue();
    election.resign();
    assertThat(seen).containsExactly("lost:RESIGNED:released=0");
  }
}
