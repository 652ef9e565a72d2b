package dev.conch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What every store's election must do, run against etcd and the in-memory store alike (as
 * ShedLock's providers share one contract test).
 */
public abstract class ElectionContractTest {

  protected static final Duration WAIT = Duration.ofSeconds(15);

  private final List<Election> elections = new ArrayList<>();
  private final AtomicInteger offices = new AtomicInteger();

  /** A new, not yet started candidate for {@code options.office()}. */
  protected abstract Election newElection(ElectionOptions options);

  /** The fenced lock of {@code office} in the store, for seam-level checks. */
  protected abstract FencedLock lock(String office);

  protected String freshOffice() {
    return "contract-"
        + getClass().getSimpleName().toLowerCase()
        + "-"
        + offices.incrementAndGet()
        + "-"
        + System.nanoTime() % 100000;
  }

  protected Election candidate(String office, String id) {
    Election election = newElection(ElectionOptions.builder(office).candidateId(id).build());
    elections.add(election);
    return election;
  }

  /** A started candidate that leads {@code office} (it is the first to campaign). */
  protected Election leading(String office, String id) throws InterruptedException {
    Election election = candidate(office, id);
    election.start();
    assertThat(election.awaitLeadership(WAIT)).isTrue();
    return election;
  }

  /** A started candidate that waits behind the leader of {@code office}. */
  protected Election following(String office, String id) {
    Election election = candidate(office, id);
    election.start();
    await().atMost(WAIT).until(() -> election.state() == State.FOLLOWING);
    return election;
  }

  @AfterEach
  void closeElections() {
    elections.forEach(Election::close);
  }

  @Test
  void soleCandidateLeadsWithATokenThatTheStoreShows() throws Exception {
    String office = freshOffice();
    Election a = leading(office, "a");
    assertThat(a.state()).isEqualTo(State.LEADING);
    long token = a.token().orElseThrow();
    assertThat(token).isPositive();
    Holder leader = a.leader().orElseThrow();
    assertThat(leader.id()).isEqualTo("a");
    assertThat(leader.rev()).isEqualTo(token);
    assertThat(leader.office()).isEqualTo(office);
    assertThat(leader.since()).isNotNull();
  }

  @Test
  void secondCandidateFollowsAndLeadsOnResignWithALargerToken() throws Exception {
    String office = freshOffice();
    Election a = leading(office, "a");
    Election b = candidate(office, "b");
    EventLog bLog = EventLog.of(b);
    b.start();
    await().atMost(WAIT).until(() -> b.state() == State.FOLLOWING);
    assertThat(b.isLeader()).isFalse();
    assertThat(b.token()).isEmpty();
    assertThat(b.leader().orElseThrow().id()).isEqualTo("a");
    await().atMost(WAIT).until(() -> !bLog.events(ElectionEvent.Following.class).isEmpty());
    assertThat(bLog.events(ElectionEvent.Following.class).get(0).leader().id()).isEqualTo("a");

    long first = a.token().orElseThrow();
    a.resign();

    assertThat(a.state()).isEqualTo(State.RESIGNED);
    assertThat(a.isLeader()).isFalse();
    assertThat(b.awaitLeadership(WAIT)).isTrue();
    assertThat(b.token().orElseThrow()).isGreaterThan(first);
    assertThat(b.leader().orElseThrow().id()).isEqualTo("b");
  }

  @Test
  void tokensGrowStrictlyOverSuccessiveLeaders() throws Exception {
    String office = freshOffice();
    List<Election> queue = new ArrayList<>();
    for (String id : List.of("a", "b", "c")) {
      Election e = candidate(office, id);
      e.start();
      queue.add(e);
      await().atMost(WAIT).until(() -> e.state() == State.LEADING || e.state() == State.FOLLOWING);
    }
    List<Long> tokens = new ArrayList<>();
    for (Election e : queue) {
      assertThat(e.awaitLeadership(WAIT)).isTrue();
      tokens.add(e.token().orElseThrow());
      e.resign();
    }
    assertThat(tokens).isSorted().doesNotHaveDuplicates();
  }

  @Test
  void transferHandsTheOfficeOverAndQueuesAgainAtTheBack() throws Exception {
    String office = freshOffice();
    Election a = candidate(office, "a");
    EventLog aLog = EventLog.of(a);
    a.start();
    assertThat(a.awaitLeadership(WAIT)).isTrue();
    Election b = following(office, "b");

    a.transfer();

    assertThat(b.awaitLeadership(WAIT)).isTrue();
    await().atMost(WAIT).until(() -> a.state() == State.FOLLOWING);
    await().atMost(WAIT).until(() -> aLog.events(ElectionEvent.Transferred.class).size() == 1);
    assertThat(a.leader().orElseThrow().id()).isEqualTo("b");
  }

  @Test
  void transferByAFollowerIsRefused() throws Exception {
    String office = freshOffice();
    Election a = leading(office, "a");
    Election b = following(office, "b");

    assertThatThrownBy(b::transfer)
        .isInstanceOf(NotLeaderException.class)
        .hasMessageContaining(office);
    assertThatThrownBy(() -> b.guardedPut("/k", "v")).isInstanceOf(NotLeaderException.class);
  }

  @Test
  void loseHooksOfTheOldLeaderFinishBeforeTheNewLeaderAcquires() throws Exception {
    String office = freshOffice();
    Election a = candidate(office, "a");
    List<String> order = new java.util.concurrent.CopyOnWriteArrayList<>();
    a.addHandler(
        new LeadershipHandler() {
          @Override
          public void acquired(Leadership leadership) {
            order.add("a+");
          }

          @Override
          public void lost(Leadership leadership, LossReason reason) throws Exception {
            Thread.sleep(300); // a slow stop: the successor must still wait for it
            order.add("a-:" + reason);
          }
        });
    a.start();
    assertThat(a.awaitLeadership(WAIT)).isTrue();
    Election b = candidate(office, "b");
    b.addHandler(
        new LeadershipHandler() {
          @Override
          public void acquired(Leadership leadership) {
            order.add("b+");
          }
        });
    b.start();
    await().atMost(WAIT).until(() -> b.state() == State.FOLLOWING);

    a.resign();
    assertThat(b.awaitLeadership(WAIT)).isTrue();

    assertThat(order).containsExactly("a+", "a-:RESIGNED", "b+");
  }

  @Test
  void failingAcquireHookStepsDownAndLetsTheNextCandidateLead() throws Exception {
    String office = freshOffice();
    Election a = candidate(office, "a");
    EventLog aLog = EventLog.of(a);
    a.addHandler(
        new LeadershipHandler() {
          @Override
          public void acquired(Leadership leadership) {
            throw new IllegalStateException("cannot start work");
          }
        });
    a.start();
    await().atMost(WAIT).until(() -> !aLog.events(ElectionEvent.Lost.class).isEmpty());
    assertThat(aLog.events(ElectionEvent.Lost.class).get(0).reason())
        .isEqualTo(LossReason.ACQUIRE_FAILED);
    assertThat(aLog.events(ElectionEvent.Leading.class)).isEmpty();

    Election b = leading(office, "b");
    assertThat(a.isLeader()).isFalse();
  }

  @Test
  void acquireHookThatHangsIsCutAtTheHookTimeout() throws Exception {
    String office = freshOffice();
    Election a =
        newElection(
            ElectionOptions.builder(office)
                .candidateId("a")
                .hookTimeout(Duration.ofMillis(300))
                .build());
    elections.add(a);
    EventLog aLog = EventLog.of(a);
    CountDownLatch interrupted = new CountDownLatch(1);
    a.addHandler(
        new LeadershipHandler() {
          @Override
          public void acquired(Leadership leadership) {
            try {
              Thread.sleep(Long.MAX_VALUE);
            } catch (InterruptedException e) {
              interrupted.countDown();
            }
          }
        });
    a.start();

    await().atMost(WAIT).until(() -> !aLog.events(ElectionEvent.Lost.class).isEmpty());
    assertThat(aLog.events(ElectionEvent.Lost.class).get(0).reason())
        .isEqualTo(LossReason.ACQUIRE_FAILED);
    assertThat(interrupted.await(5, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void deniedCandidateDoesNotCampaignAndSaysWhy() throws Exception {
    String office = freshOffice();
    Election a =
        newElection(
            ElectionOptions.builder(office)
                .candidateId("a")
                .gate(o -> Gate.Decision.deny("quarantined for maintenance"))
                .build());
    elections.add(a);
    EventLog aLog = EventLog.of(a);
    a.start();

    await().atMost(WAIT).until(() -> a.state() == State.DENIED);
    await().atMost(WAIT).until(() -> !aLog.events(ElectionEvent.Denied.class).isEmpty());
    assertThat(aLog.events(ElectionEvent.Denied.class).get(0).reason())
        .isEqualTo("quarantined for maintenance");
    assertThat(a.leader()).isEmpty();
    assertThat(aLog.events(ElectionEvent.Campaigning.class)).isEmpty();
  }

  @Test
  void gateThatDeniesWithoutAReasonStillGetsOneInTheEvent() throws Exception {
    String office = freshOffice();
    Election a =
        newElection(
            ElectionOptions.builder(office)
                .candidateId("a")
                .gate(o -> new Gate.Decision(false, null))
                .build());
    elections.add(a);
    EventLog aLog = EventLog.of(a);
    a.start();

    await().atMost(WAIT).until(() -> !aLog.events(ElectionEvent.Denied.class).isEmpty());
    // A listener may print or match the reason; it was null here.
    assertThat(aLog.events(ElectionEvent.Denied.class).get(0).reason())
        .isEqualTo("denied by the gate");
    await().atMost(WAIT).until(() -> a.state() == State.DENIED);
  }

  @Test
  void closingTheLeaderHandsOverAndClosedElectionCannotStart() throws Exception {
    String office = freshOffice();
    Election a = leading(office, "a");
    Election b = following(office, "b");

    a.close();

    assertThat(a.state()).isEqualTo(State.CLOSED);
    assertThat(b.awaitLeadership(WAIT)).isTrue();
    assertThatThrownBy(a::start).isInstanceOf(ElectionClosedException.class);
  }

  @Test
  void resignedCandidateCanJoinAgain() throws Exception {
    String office = freshOffice();
    Election a = leading(office, "a");
    long first = a.token().orElseThrow();
    a.resign();
    assertThat(a.leader()).isEmpty();

    a.start();

    assertThat(a.awaitLeadership(WAIT)).isTrue();
    assertThat(a.token().orElseThrow()).isGreaterThan(first);
  }

  @Test
  void followerResigningLeavesTheQueue() throws Exception {
    String office = freshOffice();
    Election a = leading(office, "a");
    Election b = following(office, "b");

    b.resign();
    a.resign();

    assertThat(b.state()).isEqualTo(State.RESIGNED);
    await().atMost(WAIT).until(() -> a.leader().isEmpty());
  }

  @Test
  void guardedWriteSucceedsOnlyWithTheCurrentToken() throws Exception {
    String office = freshOffice();
    FencedLock lock = lock(office);
    FencedLock.Grant first =
        lock.campaign(Holder.self(office, "a", null), l -> {}, () -> {}).get(10, TimeUnit.SECONDS);
    assertThat(lock.guardedPut(first, "/fenced/" + office, "one")).isTrue();
    lock.release(first).get(10, TimeUnit.SECONDS);

    FencedLock.Grant second =
        lock.campaign(Holder.self(office, "b", null), l -> {}, () -> {}).get(10, TimeUnit.SECONDS);

    assertThat(second.leadership().token()).isGreaterThan(first.leadership().token());
    assertThat(lock.guardedPut(first, "/fenced/" + office, "stale")).isFalse();
    assertThat(lock.guardedPut(second, "/fenced/" + office, "two")).isTrue();
    lock.release(second).get(10, TimeUnit.SECONDS);
  }

  @Test
  void slowListenerNeitherStallsTheElectionNorGrowsMemory() throws Exception {
    String office = freshOffice();
    Election a =
        newElection(ElectionOptions.builder(office).candidateId("a").eventBuffer(1).build());
    elections.add(a);
    CountDownLatch release = new CountDownLatch(1);
    a.addListener(
        event -> {
          try {
            release.await(10, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    a.addListener(
        event -> {
          throw new IllegalStateException("a broken listener");
        });
    a.start();

    assertThat(a.awaitLeadership(WAIT)).isTrue();
    // Leading is believed before its event is posted; the drop follows within moments.
    await().atMost(WAIT).until(() -> a.droppedEvents() > 0);
    release.countDown();
  }

  // The named hand-over (issue 22): the target leads next, nobody in between, or nothing changes.

  /** The ids in line, leader first, as the store reads them. */
  protected List<String> line(String office) throws Exception {
    return lock(office).candidates().get(10, TimeUnit.SECONDS).stream().map(Holder::id).toList();
  }

  @Test
  void transferToANamedCandidatePassesThoseBetweenAndNoneOfThemLeads() throws Exception {
    String office = freshOffice();
    Election a = candidate(office, "a");
    EventLog aLog = EventLog.of(a);
    a.start();
    assertThat(a.awaitLeadership(WAIT)).isTrue();
    Election b = candidate(office, "b");
    EventLog bLog = EventLog.of(b);
    b.start();
    await().atMost(WAIT).until(() -> b.state() == State.FOLLOWING);
    Election c = following(office, "c");
    assertThat(line(office)).containsExactly("a", "b", "c");
    long first = a.token().orElseThrow();

    a.transfer("c");

    assertThat(c.awaitLeadership(WAIT)).isTrue();
    assertThat(c.token().orElseThrow()).isGreaterThan(first);
    // Events reach listeners on their own threads: the hand-over's comes soon, not before.
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(aLog.events(ElectionEvent.Transferred.class))
                    .extracting(ElectionEvent.Transferred::token)
                    .containsExactly(first));
    // Both queue again behind the target, and the one that stood between never led.
    await().atMost(WAIT).until(() -> line(office).size() == 3);
    List<String> after = line(office);
    assertThat(after.get(0)).isEqualTo("c");
    assertThat(after.subList(1, 3)).containsExactlyInAnyOrder("a", "b");
    await().atMost(WAIT).until(() -> a.state() == State.FOLLOWING && b.state() == State.FOLLOWING);
    assertThat(bLog.events(ElectionEvent.Leading.class)).isEmpty();
    assertThat(bLog.hooks()).isEmpty();
    assertThat(b.isLeader()).isFalse();
    // Tokens keep growing: whoever is next after the target leads with a larger one.
    long third = c.token().orElseThrow();
    c.resign();
    await().atMost(WAIT).until(() -> a.isLeader() || b.isLeader());
    assertThat((a.isLeader() ? a : b).token().orElseThrow()).isGreaterThan(third);
  }

  @Test
  void transferToTheNextInLineHandsOverAndQueuesAgain() throws Exception {
    String office = freshOffice();
    Election a = leading(office, "a");
    Election b = following(office, "b");
    long first = a.token().orElseThrow();

    a.transfer("b");

    assertThat(b.awaitLeadership(WAIT)).isTrue();
    assertThat(b.token().orElseThrow()).isGreaterThan(first);
    await().atMost(WAIT).until(() -> a.state() == State.FOLLOWING);
    assertThat(line(office)).containsExactly("b", "a");
  }

  @Test
  void transferToACandidateThatIsNotInLineIsRefusedAndChangesNothing() throws Exception {
    String office = freshOffice();
    Election a = candidate(office, "a");
    EventLog aLog = EventLog.of(a);
    a.start();
    assertThat(a.awaitLeadership(WAIT)).isTrue();
    Election b = following(office, "b");
    long token = a.token().orElseThrow();

    assertThatThrownBy(() -> a.transfer("nobody"))
        .isInstanceOf(TransferRefusedException.class)
        .hasMessageContaining(office)
        .hasMessageContaining("'nobody'")
        .hasMessageContaining("not a live candidate")
        .hasMessageContaining("[b]");
    assertThatThrownBy(() -> a.transfer("a"))
        .isInstanceOf(TransferRefusedException.class)
        .hasMessageContaining("this candidate");

    assertThat(a.isLeader()).isTrue();
    assertThat(a.token()).hasValue(token);
    assertThat(aLog.hooks()).containsExactly("acquired");
    assertThat(aLog.events(ElectionEvent.Transferred.class)).isEmpty();
    assertThat(b.state()).isEqualTo(State.FOLLOWING);
    assertThat(line(office)).containsExactly("a", "b");
  }

  @Test
  void namedTransferByAFollowerIsRefused() throws Exception {
    String office = freshOffice();
    Election a = leading(office, "a");
    Election b = following(office, "b");

    assertThatThrownBy(() -> b.transfer("a"))
        .isInstanceOf(NotLeaderException.class)
        .hasMessageContaining(office);
    assertThat(a.isLeader()).isTrue();
  }

  @Test
  void transferGoesOnWithTheNewLineWhenOneBetweenLeftDuringTheLoseHooks() throws Exception {
    String office = freshOffice();
    Election a = candidate(office, "a");
    Election b = candidate(office, "b");
    EventLog bLog = EventLog.of(b);
    a.addHandler(
        new LeadershipHandler() {
          @Override
          public void lost(Leadership leadership, LossReason reason) {
            b.resign(); // the line changes after the check: the first compare fails
          }
        });
    a.start();
    assertThat(a.awaitLeadership(WAIT)).isTrue();
    b.start();
    await().atMost(WAIT).until(() -> b.state() == State.FOLLOWING);
    Election c = following(office, "c");

    a.transfer("c");

    assertThat(c.awaitLeadership(WAIT)).isTrue();
    assertThat(bLog.events(ElectionEvent.Leading.class)).isEmpty();
    await().atMost(WAIT).until(() -> line(office).equals(List.of("c", "a")));
  }

  @Test
  void transferWhoseTargetLeftDuringTheLoseHooksReleasesPlainly() throws Exception {
    String office = freshOffice();
    Election a = candidate(office, "a");
    Election c = candidate(office, "c");
    FencedLock reader = lock(office);
    a.addHandler(
        new LeadershipHandler() {
          @Override
          public void lost(Leadership leadership, LossReason reason) {
            c.resign();
            // A follower's resign returns once it has stopped campaigning; its key goes with the
            // next answer from etcd. The target has left once the line no longer holds it.
            await()
                .atMost(WAIT)
                .until(
                    () ->
                        reader.candidates().get(10, TimeUnit.SECONDS).stream()
                            .noneMatch(holder -> holder.id().equals("c")));
          }
        });
    a.start();
    assertThat(a.awaitLeadership(WAIT)).isTrue();
    Election b = following(office, "b");
    c.start();
    await().atMost(WAIT).until(() -> c.state() == State.FOLLOWING);

    a.transfer("c");

    // As a resign would: the next in line leads, and this candidate queues again.
    assertThat(b.awaitLeadership(WAIT)).isTrue();
    await().atMost(WAIT).until(() -> line(office).equals(List.of("b", "a")));
    // The office's history does not claim a hand-over to the target.
    assertThat(b.history(2).get(0).detail())
        .startsWith("the hand-over to 'c' was not made (the line changed: ")
        .endsWith("); released plainly");
  }

  @Test
  void theHistoryRecordsEachTermWithHowItEndedAndWhatEndedIt() throws Exception {
    String office = freshOffice();
    Election a = leading(office, "a");
    long first = a.token().orElseThrow();
    Election b = following(office, "b");
    await().atMost(WAIT).until(() -> a.history(10).size() == 1);

    a.transfer("b", "asked by the test");
    assertThat(b.awaitLeadership(WAIT)).isTrue();
    long second = b.token().orElseThrow();
    await().atMost(WAIT).until(() -> b.history(10).size() == 2);
    b.resign();
    assertThat(a.awaitLeadership(WAIT)).isTrue();

    List<TermRecord> terms =
        await().atMost(WAIT).until(() -> a.history(10), t -> t.size() == 3 && !t.get(1).isOpen());
    assertThat(terms).extracting(TermRecord::token).startsWith(first, second);
    assertThat(terms.get(0).holder().id()).isEqualTo("a");
    assertThat(terms.get(0).reason()).isEqualTo(LossReason.TRANSFERRED);
    assertThat(terms.get(0).detail()).isEqualTo("handed to 'b': asked by the test");
    assertThat(terms.get(1).holder().id()).isEqualTo("b");
    assertThat(terms.get(1).reason()).isEqualTo(LossReason.RESIGNED);
    assertThat(terms.get(1).detail()).isEqualTo("resign() was called");
    assertThat(terms.get(1).vacantBefore()).isNotNull();
    assertThat(terms.get(2).isOpen()).isTrue();
    assertThat(terms.get(2).token()).isEqualTo(a.token().orElseThrow());
    assertThat(a.history(1)).extracting(TermRecord::token).containsExactly(terms.get(2).token());
  }
}
