package dev.conch.spring.boot.autoconfigure.health;

import static dev.conch.spring.boot.autoconfigure.ConchTestSupport.app;
import static dev.conch.spring.boot.autoconfigure.ConchTestSupport.freshOffice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.spring.boot.autoconfigure.app.RunningApp;
import dev.conch.spring.boot.autoconfigure.app.RunningApp.Response;
import dev.conch.test.EtcdExtension;
import dev.conch.test.EtcdMember;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;

/**
 * The {@code conch} health contributor and leader readiness over real HTTP, against a real etcd
 * member that one test stops and starts again.
 */
@Timeout(120)
class ConchHealthHttpTest {

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private static final Duration WAIT = Duration.ofSeconds(30);

  @Test
  void healthIsUpOnTheLeaderAndOnTheFollowerWithDetailsPerOffice() {
    String office = freshOffice("health");
    try (RunningApp a = app(etcd, office, "a");
        RunningApp b = app(etcd, office, "b")) {
      await().atMost(WAIT).until(() -> a.election().isLeader());
      await()
          .atMost(WAIT)
          .until(() -> officeDetails(b, office).path("leader").asString("").equals("a"));

      Response onA = a.get("/actuator/health/conch");
      Response onB = b.get("/actuator/health/conch");

      assertThat(onA.status()).isEqualTo(200);
      assertThat(onA.json().get("status").asString()).isEqualTo("UP");
      JsonNode leading = officeDetails(a, office);
      assertThat(leading.get("state").asString()).isEqualTo("LEADING");
      assertThat(leading.get("leader").asString()).isEqualTo("a");
      assertThat(leading.get("token").asLong()).isEqualTo(a.election().token().orElseThrow());
      assertThat(onB.status()).isEqualTo(200);
      assertThat(onB.json().get("status").asString()).isEqualTo("UP");
      JsonNode following = officeDetails(b, office);
      assertThat(following.get("state").asString()).isEqualTo("FOLLOWING");
      assertThat(following.has("token")).isFalse();
    }
  }

  @Test
  void readinessFollowsLeadershipWhenAsked() {
    String office = freshOffice("health");
    String[] readiness = {
      "conch.health.readiness-leader=true",
      "management.endpoint.health.probes.enabled=true",
      "management.endpoint.health.group.leader.include=conchLeader",
      "management.endpoint.health.group.leader.additional-path=server:/leader"
    };
    RunningApp a = app(etcd, office, "a", readiness);
    try (RunningApp b = app(etcd, office, "b", readiness)) {
      await().atMost(WAIT).until(() -> a.election().isLeader());
      await().atMost(WAIT).until(() -> a.get("/actuator/health/readiness").status() == 200);

      Response follower = b.get("/actuator/health/readiness");

      assertThat(follower.status()).isEqualTo(503);
      assertThat(follower.json().get("status").asString()).isEqualTo("OUT_OF_SERVICE");
      assertThat(b.get("/actuator/health/liveness").status()).isEqualTo(200);
      assertThat(a.get("/leader").status()).isEqualTo(200);
      assertThat(b.get("/leader").status()).isEqualTo(503);
      a.close();
      await().atMost(WAIT).until(() -> b.get("/actuator/health/readiness").status() == 200);
      assertThat(b.get("/leader").status()).isEqualTo(200);
    } finally {
      a.close();
    }
  }

  @Test
  void requiredReadinessGroupIsAskedOfTheHealthEndpointWithoutConchsOwnMember() {
    String office = freshOffice("health");
    // readiness holds readinessState and conchLeader; were conchLeader (OUT_OF_SERVICE until this
    // instance leads) asked, readiness would keep the candidacy out for good.
    try (RunningApp a =
        app(
            etcd,
            office,
            "a",
            "conch.health.readiness-leader=true",
            "management.endpoint.health.probes.enabled=true",
            "conch.health.require=readiness",
            "conch.health.interval=200ms")) {
      await().atMost(WAIT).until(() -> a.election().isLeader());
      // Ready now: it leads, so conchLeader is UP too.
      await().atMost(WAIT).until(() -> a.get("/actuator/health/readiness").status() == 200);
    }
  }

  @Test
  void withEtcdStoppedHealthIsDownAndTheEndpointFailsClosedAndBothRecoverWhenItReturns() {
    String office = freshOffice("health");
    String assertion = "/actuator/conch/" + office + "/assert";
    EtcdMember member = etcd.cluster().member(0);
    try (RunningApp a = app(etcd, office, "a", "conch.etcd.timeout=1s")) {
      await().atMost(WAIT).until(() -> a.get(assertion).status() == 200);
      assertThat(a.get("/actuator/health/conch").status()).isEqualTo(200);
      try {
        member.stop();

        Response health = a.get("/actuator/health/conch");
        Response leader = a.get("/actuator/conch/" + office);
        Response held = a.get(assertion);

        assertThat(health.status()).isEqualTo(503);
        assertThat(health.json().get("status").asString()).isEqualTo("DOWN");
        assertThat(health.json().get("details").get("error").asString())
            .startsWith("etcd unavailable");
        assertThat(leader.status()).isEqualTo(503);
        assertThat(leader.json().get("error").asString()).startsWith("etcd unavailable");
        assertThat(held.status()).isEqualTo(503);
        assertThat(held.json().get("held").asBoolean()).isFalse();
      } finally {
        if (!member.isRunning()) {
          member.start();
        }
      }
      await().atMost(WAIT).until(() -> a.get("/actuator/health/conch").status() == 200);
      await().atMost(WAIT).until(() -> a.get(assertion).status() == 200);
    }
  }

  private static JsonNode officeDetails(RunningApp app, String office) {
    return app.get("/actuator/health/conch").json().path("details").path("offices").path(office);
  }
}
