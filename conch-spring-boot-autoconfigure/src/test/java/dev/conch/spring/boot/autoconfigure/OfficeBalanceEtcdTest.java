package dev.conch.spring.boot.autoconfigure;

import static dev.conch.spring.boot.autoconfigure.ConchTestSupport.app;
import static dev.conch.spring.boot.autoconfigure.ConchTestSupport.freshOffice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.OfficeGroup;
import dev.conch.spring.Elections;
import dev.conch.spring.OfficeMovedEvent;
import dev.conch.spring.boot.autoconfigure.app.RunningApp;
import dev.conch.spring.boot.autoconfigure.app.RunningApp.Response;
import dev.conch.test.EtcdExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.ApplicationListener;
import tools.jackson.databind.JsonNode;

/**
 * Instances of one application against a real etcd member share its offices fairly ({@code
 * conch.balance.*}): a rolling start of three instances with six offices ends at two each, with the
 * fewest moves, an {@link OfficeMovedEvent} and a {@code conch.balance.moves} count per move, and
 * the endpoint's overview shows the group.
 */
@Timeout(180)
class OfficeBalanceEtcdTest {

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private static final Duration WAIT = Duration.ofSeconds(30);

  private static final int OFFICES = 6;

  @Test
  void rollingStartOfThreeInstancesEndsAtTwoOfficesEachWithTheFewestMoves() {
    String prefix = freshOffice("share");
    String group = prefix + "-group";
    List<Instance> instances = new ArrayList<>();
    try {
      Instance a = start(prefix, group, "a");
      instances.add(a);
      await().atMost(WAIT).until(() -> a.leads() == OFFICES);

      Instance b = start(prefix, group, "b");
      instances.add(b);
      await().atMost(WAIT).until(() -> a.leads() == 3 && b.leads() == 3);
      // a gave three offices away, one move each, and nothing moves back.
      await().atMost(WAIT).until(() -> moves(instances) == 3);
      assertThat(a.moves).hasSize(3).allMatch(move -> move.getTo().equals("b"));

      Instance c = start(prefix, group, "c");
      instances.add(c);
      await().atMost(WAIT).until(() -> a.leads() == 2 && b.leads() == 2 && c.leads() == 2);
      await().atMost(WAIT).until(() -> moves(instances) == 5);
      assertThat(c.moves).isEmpty();
      for (Instance instance : instances) {
        assertThat(instance.moves)
            .allMatch(move -> move.getReason() == OfficeGroup.Reason.SHARE)
            .allMatch(move -> move.getGroup().equals(group))
            .allMatch(move -> move.getToken() > 0);
        await()
            .atMost(WAIT)
            .until(() -> counted(instance, group, "share") == instance.moves.size());
      }
      await().atMost(WAIT).until(() -> leadsInOverview(c, group).equals(List.of(2, 2, 2)));
      JsonNode members = c.app.get("/actuator/conch").json().get("group").get("members");
      assertThat(members).extracting(m -> m.get("id").asString()).containsExactly("a", "b", "c");
      assertThat(members)
          .extracting(m -> m.get("self").asBoolean())
          .containsExactly(false, false, true);
      assertThat(members).extracting(m -> m.get("priority").asInt()).containsOnly(0);

      // c stops: its offices go to whoever is next in line, then the shares even out at 3 / 3.
      c.app.close();
      instances.remove(c);
      await().atMost(WAIT).until(() -> a.leads() == 3 && b.leads() == 3);
    } finally {
      instances.forEach(instance -> instance.app.close());
    }
  }

  @Test
  void balancingTurnedOffLeavesEveryOfficeWithTheFirstInstanceAndShowsNoGroup() {
    String prefix = freshOffice("share");
    String group = prefix + "-group";
    Instance a = start(prefix, group, "a", "conch.balance.enabled=false");
    try (RunningApp unused = a.app) {
      await().atMost(WAIT).until(() -> a.leads() == OFFICES);
      Instance b = start(prefix, group, "b", "conch.balance.enabled=false");
      try (RunningApp alsoUnused = b.app) {
        await().atMost(WAIT).until(() -> b.following() == OFFICES);
        await().during(Duration.ofSeconds(2)).atMost(WAIT).until(() -> a.leads() == OFFICES);
        assertThat(a.app.get("/actuator/conch").json().get("group").isNull()).isTrue();
      }
    }
  }

  @Test
  void candidateOfHigherPriorityIsHandedTheOfficeAfterTheMinimumTenure() {
    String office = freshOffice("priority");
    String[] common = {
      "conch.balance.group=" + office, "conch.balance.delay=300ms", "conch.candidate.min-tenure=1s"
    };
    RunningApp low = app(etcd, office, "low", common);
    try (RunningApp unused = low) {
      await().atMost(WAIT).until(() -> low.election().isLeader());
      long token = low.election().token().orElseThrow();
      Instance recorded = new Instance(low);
      low.context().addApplicationListener(recorded);
      List<String> high = new ArrayList<>(List.of(common));
      high.add("conch.candidate.priority=10");
      try (RunningApp preferred = app(etcd, office, "high", high.toArray(String[]::new))) {
        await().atMost(WAIT).until(() -> preferred.election().isLeader());
        assertThat(low.election().isLeader()).isFalse();
        await().atMost(WAIT).until(() -> recorded.moves.size() == 1);
        OfficeMovedEvent move = recorded.moves.get(0);
        assertThat(move.getOffice()).isEqualTo(office);
        assertThat(move.getTo()).isEqualTo("high");
        assertThat(move.getToken()).isEqualTo(token);
        assertThat(move.getReason()).isEqualTo(OfficeGroup.Reason.PRIORITY);
        await().atMost(WAIT).until(() -> counted(recorded, office, "priority") == 1);
        JsonNode members = preferred.get("/actuator/conch").json().get("group").get("members");
        assertThat(members).extracting(m -> m.get("priority").asInt()).containsExactly(10, 0);
        // Equal or lower priorities never take it back: the low one stays behind.
        await()
            .during(Duration.ofSeconds(2))
            .atMost(WAIT)
            .until(() -> preferred.election().isLeader() && recorded.moves.size() == 1);
      }
    }
  }

  /** An instance with the offices {@code <prefix>-0} to {@code <prefix>-5} in {@code group}. */
  private static Instance start(String prefix, String group, String id, String... more) {
    List<String> properties = new ArrayList<>();
    for (int i = 1; i < OFFICES; i++) {
      properties.add("conch.offices." + prefix + "-" + i + ".hook-timeout=30s");
    }
    properties.add("conch.balance.group=" + group);
    properties.add("conch.balance.delay=300ms");
    properties.addAll(List.of(more));
    RunningApp app = app(etcd, prefix + "-0", id, properties.toArray(String[]::new));
    Instance instance = new Instance(app);
    // Before any other instance joins: a move needs a change of members first.
    app.context().addApplicationListener(instance);
    return instance;
  }

  private static int moves(List<Instance> instances) {
    return instances.stream().mapToInt(instance -> instance.moves.size()).sum();
  }

  /**
   * {@code conch.balance.moves} of {@code conch.group} and {@code conch.reason}, as the metrics
   * endpoint says.
   */
  private static double counted(Instance instance, String group, String reason) {
    Response response =
        instance.app.get(
            "/actuator/metrics/conch.balance.moves?tag=conch.group:"
                + group
                + "&tag=conch.reason:"
                + reason);
    if (response.status() != 200) {
      return 0;
    }
    return response.json().get("measurements").get(0).get("value").asDouble();
  }

  /** How many offices each member leads, as the endpoint's overview shows the group. */
  private static List<Integer> leadsInOverview(Instance instance, String group) {
    JsonNode overview = instance.app.get("/actuator/conch").json().get("group");
    if (overview == null || overview.isNull() || !overview.get("name").asString().equals(group)) {
      return List.of();
    }
    List<Integer> leads = new ArrayList<>();
    overview.get("members").forEach(member -> leads.add(member.get("leads").asInt()));
    return leads;
  }

  /** A running application and the moves it published. */
  private static final class Instance implements ApplicationListener<OfficeMovedEvent> {

    final RunningApp app;

    final List<OfficeMovedEvent> moves = new CopyOnWriteArrayList<>();

    Instance(RunningApp app) {
      this.app = app;
    }

    @Override
    public void onApplicationEvent(OfficeMovedEvent event) {
      this.moves.add(event);
    }

    long leads() {
      return elections().stream().filter(Election::isLeader).count();
    }

    long following() {
      return elections().stream().filter(e -> e.state() == dev.conch.State.FOLLOWING).count();
    }

    private List<Election> elections() {
      return this.app.context().getBean(Elections.class).all();
    }
  }
}
