package dev.conch.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.State;
import dev.conch.process.ExternalCommandRunner;
import dev.conch.spring.Elections;
import dev.conch.spring.boot.autoconfigure.app.RunningApp;
import dev.conch.test.EtcdExtension;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Two applications with an {@code ExternalCommandRunner} each, against a real etcd member: the
 * command (a shell writing files) runs only on the leader, stops when that application shuts down,
 * and then runs on the other one with a newer token.
 */
class ExternalCommandRunnerEtcdTest {

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  @Test
  void commandRunsOnlyOnTheLeaderAndMovesToTheOtherInstanceWhenTheLeaderShutsDown() {
    RunningApp a = app("a");
    try (RunningApp b = app("b")) {
      Election first = a.election();
      await().atMost(WAIT).until(() -> started("a") != null);
      await().atMost(WAIT).until(() -> b.election().state() == State.FOLLOWING);
      long token = first.token().orElseThrow();
      long pid = a.context().getBean(ExternalCommandRunner.class).childPid().orElseThrow();

      assertThat(started("a")).isEqualTo(token + " " + pid);
      assertThat(b.context().getBean(ExternalCommandRunner.class).childPid()).isEmpty();
      assertThat(started("b")).isNull();
      JsonNode office = a.get("/actuator/conch").json().get("offices").get(0);
      assertThat(office.get("office").asString()).isEqualTo("batch");
      assertThat(office.get("state").asString()).isEqualTo("LEADING");
      assertThat(office.get("token").asLong()).isEqualTo(token);

      a.close();

      assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
      assertThat(read("a.lost")).isEqualTo("lost " + token);
      await().atMost(WAIT).until(() -> started("b") != null);
      long next = Long.parseLong(started("b").split(" ")[0]);
      assertThat(next).isGreaterThan(token);
      assertThat(b.election().token()).hasValue(next);
    } finally {
      a.close();
    }
  }

  @Test
  void runnersOfficeIsNotSharedWithTheGroupTheOtherOfficesAre() {
    String other = ConchTestSupport.freshOffice("beside-runner");
    try (RunningApp a =
        app("a", "conch.offices." + other + ".hook-timeout=5s", "conch.balance.group=" + other)) {
      await().atMost(WAIT).until(() -> started("a") != null);
      Election beside = a.context().getBean(Elections.class).get(other);
      await().atMost(WAIT).until(beside::isLeader);

      // It leads both offices, but only the other one counts in the group: the runner's election
      // cannot hand over.
      await().atMost(WAIT).until(() -> groupLeads(a) == 1);
      assertThat(a.election().isLeader()).isTrue();
    }
  }

  /** How many of the group's offices this instance leads, as the endpoint's overview says. */
  private static int groupLeads(RunningApp app) {
    JsonNode group = app.get("/actuator/conch").json().get("group");
    if (group == null || group.isNull() || group.get("members").isEmpty()) {
      return -1;
    }
    return group.get("members").get(0).get("leads").asInt();
  }

  private RunningApp app(String id, String... more) {
    Path started = this.dir.resolve(id + ".started");
    Path lost = this.dir.resolve(id + ".lost");
    List<String> properties =
        new ArrayList<>(
            List.of(
                "conch.etcd.endpoints=" + etcd.cluster().endpoints(),
                "conch.office=batch",
                "conch.candidate.id=" + id,
                "conch.runner.command[0]=sh",
                "conch.runner.command[1]=-c",
                // Written to a temporary name and moved, so that a reader never sees half a line.
                "conch.runner.command[2]=echo \"$CONCH_REV $$\" > "
                    + started
                    + ".tmp && mv "
                    + started
                    + ".tmp "
                    + started
                    + " && exec sleep 600",
                "conch.runner.on-lose=echo \"lost $CONCH_REV\" > " + lost,
                "conch.runner.kill-after=2s"));
    properties.addAll(List.of(more));
    return RunningApp.start(properties.toArray(String[]::new));
  }

  private String started(String id) {
    return read(id + ".started");
  }

  private String read(String name) {
    Path file = this.dir.resolve(name);
    try {
      return Files.exists(file) ? Files.readString(file).trim() : null;
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);
    }
  }
}
