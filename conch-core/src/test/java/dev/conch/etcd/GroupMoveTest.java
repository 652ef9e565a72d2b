package dev.conch.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.Holder;
import dev.conch.OfficeGroup.Move;
import dev.conch.OfficeGroup.Reason;
import dev.conch.local.LocalOffices;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One move of a group carried out on the in-memory store: a batch goes to the targets still owed
 * one, each office to whichever of them stands first in its line, and a move started while the
 * lease is strained hands nothing over.
 */
@Timeout(60)
class GroupMoveTest {

  private static final Duration WAIT = Duration.ofSeconds(20);

  private final LocalOffices offices = new LocalOffices();
  private final List<Election> elections = new ArrayList<>();

  @AfterEach
  void close() {
    elections.forEach(Election::close);
  }

  /**
   * Six offices led by a; behind a in each line b then c in the even offices, c then b in the odd
   * ones.
   */
  private Map<String, Election> ledByA() {
    Map<String, Election> led = new HashMap<>();
    for (int i = 0; i < 6; i++) {
      String office = "o" + i;
      Election a = start(office, "a");
      await().atMost(WAIT).until(a::isLeader);
      led.put(office, a);
      List<String> behind = i % 2 == 0 ? List.of("b", "c") : List.of("c", "b");
      for (String id : behind) {
        start(office, id);
        await().atMost(WAIT).until(() -> line(office).contains(id));
      }
    }
    return led;
  }

  private Election start(String office, String id) {
    Election election = offices.election(ElectionOptions.builder(office).candidateId(id).build());
    elections.add(election);
    election.start();
    return election;
  }

  private List<String> line(String office) {
    return offices.lock(office).candidates().join().stream().map(Holder::id).toList();
  }

  @Test
  void aBatchGivesEachTargetItsCountEachOfficeToTheOneFirstInItsLine() throws Exception {
    Map<String, Election> led = ledByA();
    Queue<Move> made = new ConcurrentLinkedQueue<>();
    AtomicReference<GroupMove.Outcome> outcome = new AtomicReference<>();
    ShareRule.Plan plan =
        new ShareRule.Plan(
            List.of("o0", "o1", "o2", "o3", "o4", "o5"),
            List.of("b", "c"),
            Reason.SHARE,
            List.of(2, 2));
    GroupMove move =
        new GroupMove(
            "g", plan, led::get, WAIT, Duration.ofSeconds(1), () -> false, made::add, outcome::set);
    assertThat(move.await(WAIT)).isTrue();

    assertThat(outcome.get()).isInstanceOf(GroupMove.Moved.class);
    assertThat(made).hasSize(4);
    assertThat(made).filteredOn(m -> m.to().equals("b")).hasSize(2);
    assertThat(made).filteredOn(m -> m.to().equals("c")).hasSize(2);
    // Each move was told once its target led the office.
    for (Move m : made) {
      assertThat(offices.leader(m.office()).map(Holder::id)).contains(m.to());
    }
    assertThat(led.values().stream().filter(Election::isLeader).count()).isEqualTo(2);
  }

  @Test
  void aMoveBegunWhileARenewalFailsHandsNothingOver() throws Exception {
    Map<String, Election> led = ledByA();
    AtomicBoolean strained = new AtomicBoolean(true);
    Queue<Move> made = new ConcurrentLinkedQueue<>();
    AtomicReference<GroupMove.Outcome> outcome = new AtomicReference<>();
    GroupMove move =
        new GroupMove(
            "g",
            new ShareRule.Plan(List.of("o0", "o1", "o2"), List.of("b"), Reason.SHARE, List.of(3)),
            led::get,
            WAIT,
            Duration.ofSeconds(1),
            strained::get,
            made::add,
            outcome::set);
    assertThat(move.await(WAIT)).isTrue();

    assertThat(outcome.get()).isEqualTo(new GroupMove.NotMoved("a lease renewal failed", false));
    assertThat(made).isEmpty();
    assertThat(led.values().stream().allMatch(Election::isLeader)).isTrue();
  }
}
