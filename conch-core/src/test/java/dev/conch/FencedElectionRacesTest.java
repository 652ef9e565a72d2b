package dev.conch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.conch.local.LocalOffices;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Races between what the store says, the deadline and the candidate's own commands, on a store the
 * test scripts and an injected clock: each of these once left a wrong reason, a term believed after
 * its end, or an election that never campaigned again.
 */
@Timeout(60)
class FencedElectionRacesTest {

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

  @AfterEach
  void close() {
    election.close();
  }

  private EventLog leading() throws InterruptedException {
    EventLog log = EventLog.of(election);
    election.start();
    assertThat(election.awaitLeadership(WAIT)).isTrue();
    return log;
  }

  @Test
  void resignRacingADeletedKeyIsReportedAsTheDeletionAndStillLeaves() throws Exception {
    EventLog log = leading();

    lock.ended = LossReason.KEY_DELETED; // not yet seen by the loop
    election.resign();

    await().atMost(WAIT).until(() -> !log.events(ElectionEvent.Lost.class).isEmpty());
    assertThat(log.events(ElectionEvent.Lost.class))
        .extracting(ElectionEvent.Lost::reason)
        .containsExactly(LossReason.KEY_DELETED);
    assertThat(log.hooks()).containsExactly("acquired", "lost:KEY_DELETED");
    assertThat(election.state()).isEqualTo(State.RESIGNED);
  }

  @Test
  void transferRacingAPassedDeadlineIsALossAndTheCandidateQueuesAgain() throws Exception {
    lock.campaignsAllowed = 1;
    EventLog log = leading();

    now.addAndGet(11 * SECOND); // past the deadline; the loop has most likely not looked yet
    try {
      election.transfer();
    } catch (NotLeaderException lookedFirst) {
      // The term looks at the clock once more right after it announced itself (LeadershipTerm's
      // last acquire step), and that look can come after the clock was moved: then the term ended
      // on its deadline before the transfer was asked for, and the transfer is refused. Either
      // way round, what follows must be the same.
    }

    await().atMost(WAIT).until(() -> !log.events(ElectionEvent.Lost.class).isEmpty());
    assertThat(log.events(ElectionEvent.Lost.class))
        .extracting(ElectionEvent.Lost::reason)
        .containsExactly(LossReason.LEASE_EXPIRED);
    // The transfer was about the term that ended: the candidate campaigns again.
    await().atMost(WAIT).until(() -> lock.attempts.get() == 2);
    assertThat(election.state()).isNotIn(State.RESIGNED, State.CLOSED);
  }

  @Test
  void termThatIsOverBeforeItCouldLeadIsNeverReportedAsLeadingEvenWithoutHandlers()
      throws Exception {
    List<ElectionEvent> events = new CopyOnWriteArrayList<>();
    election.addListener(events::add); // a listener only: no hooks to run
    lock.ended = LossReason.KEY_DELETED; // the key is gone by the time the win returns
    lock.campaignsAllowed = 1;
    election.start();

    await()
        .atMost(WAIT)
        .until(() -> events.stream().anyMatch(ElectionEvent.Lost.class::isInstance));
    assertThat(events).noneMatch(ElectionEvent.Leading.class::isInstance);
    assertThat(events)
        .filteredOn(ElectionEvent.Lost.class::isInstance)
        .extracting(event -> ((ElectionEvent.Lost) event).reason())
        .containsExactly(LossReason.KEY_DELETED);
    assertThat(election.isLeader()).isFalse();
  }

  @Test
  void resignAskedForAsTheLastAcquireHookReturnsStillAnnouncesTheTerm() throws Exception {
    // A runner's child that exits at once: its resign is asked for before the hook that started
    // it has returned. The work did run under a valid term, so Leading is announced, then Resigned.
    List<ElectionEvent> events = new CopyOnWriteArrayList<>();
    election.addListener(events::add);
    Thread resigner = new Thread(election::resign, "resigner");
    election.addHandler(
        new LeadershipHandler() {
          @Override
          public void acquired(Leadership leadership) {
            resigner.start();
            // Deaf to interrupts, like code that has already started its work.
            while (((FencedElection) election).requested() == null) {
              Thread.onSpinWait();
            }
          }
        });
    lock.campaignsAllowed = 1;
    election.start();

    await()
        .atMost(WAIT)
        .until(() -> events.stream().anyMatch(ElectionEvent.Resigned.class::isInstance));
    assertThat(events)
        .filteredOn(e -> e instanceof ElectionEvent.Leading || e instanceof ElectionEvent.Resigned)
        .extracting(e -> e.getClass().getSimpleName())
        .containsExactly("Leading", "Resigned");
    resigner.join(WAIT.toMillis());
  }

  @Test
  void resignWhileAnAcquireHookRunsInterruptsItAndItsLoseHookWaitsForIt() throws Exception {
    List<String> hooks = new CopyOnWriteArrayList<>();
    AtomicBoolean acquireRunning = new AtomicBoolean();
    election.addHandler(
        new LeadershipHandler() {
          @Override
          public void acquired(Leadership leadership) throws InterruptedException {
            acquireRunning.set(true);
            hooks.add("acquiring");
            try {
              Thread.sleep(Long.MAX_VALUE);
            } catch (InterruptedException e) {
              hooks.add("interrupted");
              Thread.sleep(200); // cleaning up what it began, deaf to a second interrupt
              throw e;
            } finally {
              acquireRunning.set(false);
            }
          }

          @Override
          public void lost(Leadership leadership, LossReason reason) {
            hooks.add("lost:" + reason + (acquireRunning.get() ? " beside its acquire" : ""));
          }
        });
    List<ElectionEvent> events = new CopyOnWriteArrayList<>();
    election.addListener(events::add);
    lock.campaignsAllowed = 1;
    election.start();
    await().atMost(WAIT).until(() -> hooks.contains("acquiring"));

    election.resign();

    assertThat(hooks).containsExactly("acquiring", "interrupted", "lost:RESIGNED");
    assertThat(events).noneMatch(ElectionEvent.Leading.class::isInstance);
    assertThat(election.state()).isEqualTo(State.RESIGNED);
  }

  @Test
  void resignAsyncLeavesOnTheLoopAndCompletesOnceReleased() throws Exception {
    EventLog log = leading();
    java.util.concurrent.CompletableFuture<Void> left = election.resignAsync();

    left.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(lock.released.get()).isEqualTo(1);
    assertThat(log.hooks()).containsExactly("acquired", "lost:RESIGNED");
    assertThat(election.state()).isEqualTo(State.RESIGNED);
    assertThat(election.resignAsync()).isCompleted(); // not in the election: nothing to wait for
  }

  @Test
  void startRightAfterResignAsyncJoinsAgainOnceTheResignationIsDone() throws Exception {
    EventLog log = leading();

    election.resignAsync();
    election.start();

    assertThat(election.awaitLeadership(WAIT)).isTrue();
    assertThat(log.hooks()).containsExactly("acquired", "lost:RESIGNED", "acquired");
    assertThat(lock.campaigns.get()).isEqualTo(2);
  }

  @Test
  void errorInsideTheTermEndsItReleasesTheGrantAndRunsTheLoseHooks() throws Exception {
    EventLog log = leading();

    lock.throwOnce.set(true); // the store fails with an Error while the term is held
    lock.wake();

    await().atMost(WAIT).until(() -> lock.released.get() == 1);
    assertThat(election.isLeader()).isFalse();
    assertThat(election.leadership()).isEmpty();
    assertThat(log.hooks()).containsExactly("acquired", "lost:CLOSED");
  }

  @Test
  void leadershipHandedToHooksTurnsInvalidWhenTheTermEnds() throws Exception {
    EventLog log = leading();
    Leadership term = election.leadership().orElseThrow();
    assertThat(term.isValid()).isTrue();
    assertThat(term.timeToDeadline()).isEqualTo(Duration.ofSeconds(10));

    now.addAndGet(8 * SECOND); // inside the loss lead: believed no more

    assertThat(term.isValid()).isFalse();
    assertThat(term.timeToDeadline()).isEqualTo(Duration.ofSeconds(2));
    await().atMost(WAIT).until(() -> log.hooks().contains("lost:RENEWAL_FAILED"));
  }

  @Test
  void eventsOfManyElectionsShareTwoThreadsAndAClosedElectionRunsNoHook() throws Exception {
    assertThat(threads("conch-events-jobs")).isZero(); // none started by the constructor
    LocalOffices offices = new LocalOffices();
    List<Election> many = new ArrayList<>();
    List<ElectionEvent> seen = new CopyOnWriteArrayList<>();
    for (int i = 0; i < 20; i++) {
      Election one = offices.election(ElectionOptions.forOffice("office-" + i));
      one.addListener(seen::add);
      one.start();
      many.add(one);
    }
    for (Election one : many) {
      assertThat(one.awaitLeadership(WAIT)).isTrue();
    }
    await()
        .atMost(WAIT)
        .until(() -> seen.stream().filter(ElectionEvent.Leading.class::isInstance).count() == 20);
    assertThat(Thread.getAllStackTraces().keySet())
        .filteredOn(t -> t.getName().startsWith("conch-events"))
        .hasSizeLessThanOrEqualTo(2);
    many.forEach(Election::close);

    HookRunner hooks = new HookRunner("late", null);
    hooks.close();
    AtomicBoolean ran = new AtomicBoolean();
    assertThatThrownBy(() -> hooks.start(() -> ran.set(true)))
        .isInstanceOf(RejectedExecutionException.class);
    assertThat(ran).isFalse();
  }

  private static long threads(String name) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().equals(name))
        .count();
  }
}
