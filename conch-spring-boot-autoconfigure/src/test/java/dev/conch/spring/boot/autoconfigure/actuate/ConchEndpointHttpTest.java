package dev.conch.spring.boot.autoconfigure.actuate;

import static dev.conch.spring.boot.autoconfigure.ConchTestSupport.app;
import static dev.conch.spring.boot.autoconfigure.ConchTestSupport.freshOffice;
import static dev.conch.spring.boot.autoconfigure.app.RunningApp.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Leadership;
import dev.conch.spring.boot.autoconfigure.app.RunningApp;
import dev.conch.spring.boot.autoconfigure.app.RunningApp.Response;
import dev.conch.test.EtcdExtension;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;

/**
 * The {@code conch} endpoint and meters over real HTTP, two applications against a real etcd
 * member: the contract scripts and load balancers depend on.
 */
class ConchEndpointHttpTest {

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private static final Duration WAIT = Duration.ofSeconds(30);

  private static final String UNRESTRICTED = "management.endpoint.conch.access=unrestricted";

  @Test
  void assertAnswers200OnTheLeaderAnd409OnTheOtherAndFlipsWhenTheLeaderShutsDown() {
    String office = freshOffice("http");
    String assertion = "/actuator/conch/" + office + "/assert";
    RunningApp a = app(etcd, office, "a");
    try (RunningApp b = app(etcd, office, "b")) {
      await().atMost(WAIT).until(() -> a.get(assertion).status() == 200);
      await().atMost(WAIT).until(() -> state(b, office).equals("FOLLOWING"));
      Leadership term = a.election().leadership().orElseThrow();
      String held = "{\"held\":true,\"rev\":%d,\"host\":\"%s\",\"id\":\"a\"}";
      String notHeld = "{\"held\":false,\"rev\":%d,\"host\":\"%s\",\"id\":\"a\"}";

      Response onA = a.get(assertion);
      Response onB = b.get(assertion);

      assertThat(onA.status()).isEqualTo(200);
      assertThat(onA.json()).isEqualTo(json(held.formatted(term.token(), term.holder().host())));
      assertThat(onB.status()).isEqualTo(409);
      assertThat(onB.json()).isEqualTo(json(notHeld.formatted(term.token(), term.holder().host())));
      assertThat(a.get(assertion + "?minRev=" + term.token()).status()).isEqualTo(200);
      assertThat(a.get(assertion + "?minRev=" + (term.token() + 1)).status()).isEqualTo(409);

      a.close();
      await().atMost(WAIT).until(() -> b.get(assertion).status() == 200);
      assertThat(b.get(assertion).json().get("rev").asLong()).isGreaterThan(term.token());
      // Both run on this host: the candidate id is what tells them apart.
      assertThat(b.get(assertion).json().get("host").asString()).isEqualTo(term.holder().host());
      assertThat(b.get(assertion).json().get("id").asString()).isEqualTo("b");
    } finally {
      a.close();
    }
  }

  @Test
  void overviewShowsThisInstanceAndEachOfficeWithItsStateLeaderAndToken() {
    String office = freshOffice("http");
    try (RunningApp a = app(etcd, office, "a");
        RunningApp b = app(etcd, office, "b")) {
      await().atMost(WAIT).until(() -> state(a, office).equals("LEADING"));
      await().atMost(WAIT).until(() -> leaderId(b).equals("a"));
      long token = a.election().token().orElseThrow();

      JsonNode onA = a.get("/actuator/conch").json();
      JsonNode onB = b.get("/actuator/conch").json();

      assertThat(fieldNames(onA)).containsExactly("candidate", "offices", "group");
      assertThat(fieldNames(onA.get("candidate"))).containsExactly("id", "host", "pid");
      assertThat(onA.get("candidate").get("id").asString()).isEqualTo("a");
      assertThat(onA.get("candidate").get("pid").asLong()).isEqualTo(ProcessHandle.current().pid());
      JsonNode leading = onA.get("offices").get(0);
      assertThat(fieldNames(leading))
          .containsExactly("office", "state", "leader", "token", "timing", "candidacy", "jobs");
      assertThat(leading.get("office").asString()).isEqualTo(office);
      assertThat(leading.get("token").asLong()).isEqualTo(token);
      assertThat(leading.get("leader").get("rev").asLong()).isEqualTo(token);
      JsonNode following = onB.get("offices").get(0);
      assertThat(following.get("state").asString()).isEqualTo("FOLLOWING");
      assertThat(following.get("token").isNull()).isTrue();
      assertThat(following.get("leader").get("rev").asLong()).isEqualTo(token);
    }
  }

  @Test
  void leaderOfAnyOfficeIsReadFromEtcdAndAVacantOfficeIs404() {
    String office = freshOffice("http");
    try (RunningApp a = app(etcd, office, "a");
        RunningApp observer = app(etcd, freshOffice("http"), "observer")) {
      await().atMost(WAIT).until(() -> a.election().isLeader());
      Leadership term = a.election().leadership().orElseThrow();

      Response leader = observer.get("/actuator/conch/" + office);

      assertThat(leader.status()).isEqualTo(200);
      JsonNode holder = leader.json();
      assertThat(fieldNames(holder))
          .containsExactly("office", "host", "pid", "since", "id", "rev", "lease");
      assertThat(holder.get("id").asString()).isEqualTo("a");
      assertThat(holder.get("rev").asLong()).isEqualTo(term.token());
      assertThat(holder.get("lease").asString()).isEqualTo(term.leaseHex());
      assertThat(Instant.parse(holder.get("since").asString())).isBeforeOrEqualTo(Instant.now());
      Response vacant = observer.get("/actuator/conch/vacant-" + office);
      assertThat(vacant.status()).isEqualTo(404);
      assertThat(vacant.json().get("error").asString()).contains("vacant");
      assertThat(observer.get("/actuator/conch/not%20an%20office").status()).isEqualTo(400);
      assertThat(observer.get("/actuator/conch/" + office + "/other").status()).isEqualTo(404);
    }
  }

  @Test
  void keyOfAnotherToolIsShownWithItsRawValue() throws Exception {
    String office = freshOffice("http");
    try (Client client =
            Client.builder()
                .endpoints(etcd.cluster().endpointList().toArray(String[]::new))
                .build();
        RunningApp observer = app(etcd, freshOffice("http"), "observer")) {
      ByteSequence key = bytes("/conch/v1/elect/" + office + "/694d");
      long rev =
          client
              .getKVClient()
              .put(key, bytes("not json"))
              .get(10, TimeUnit.SECONDS)
              .getHeader()
              .getRevision();

      Response leader = observer.get("/actuator/conch/" + office);

      assertThat(leader.status()).isEqualTo(200);
      assertThat(leader.json())
          .isEqualTo(
              json(
                  ("{\"office\":\"%s\",\"host\":null,\"pid\":0,\"since\":null,\"id\":null,"
                          + "\"rev\":%d,\"lease\":\"0\",\"value\":\"not json\"}")
                      .formatted(office, rev)));
    }
  }

  @Test
  void writeOperationIsRefusedAtTheDefaultReadOnlyAccess() {
    String office = freshOffice("http");
    try (RunningApp a = app(etcd, office, "a")) {
      await().atMost(WAIT).until(() -> a.election().isLeader());

      Response post = a.post("/actuator/conch/" + office, "{\"action\":\"transfer\"}");

      assertThat(post.status()).isEqualTo(405);
      assertThat(a.get("/actuator/conch/" + office + "/assert").status()).isEqualTo(200);
      assertThat(a.election().isLeader()).isTrue();
    }
  }

  @Test
  void writeOperationStaysRefusedAboveTheMaximumAccessPermitted() {
    String office = freshOffice("http");
    try (RunningApp a =
        app(
            etcd,
            office,
            "a",
            UNRESTRICTED,
            "management.endpoints.access.max-permitted=read-only")) {
      await().atMost(WAIT).until(() -> a.election().isLeader());

      Response post = a.post("/actuator/conch/" + office, "{\"action\":\"resign\"}");

      assertThat(post.status()).isEqualTo(405);
      assertThat(a.election().isLeader()).isTrue();
    }
  }

  @Test
  void endpointJsonIsWrittenByTheActuatorsMapperNotTheApplicationsOwn() {
    String office = freshOffice("http");
    try (RunningApp a =
        app(etcd, office, "a", "spring.jackson.property-naming-strategy=UPPER_CAMEL_CASE")) {
      await()
          .atMost(WAIT)
          .until(() -> a.get("/actuator/conch/" + office + "/assert").status() == 200);

      JsonNode assertion = a.get("/actuator/conch/" + office + "/assert").json();
      JsonNode overview = a.get("/actuator/conch").json();
      JsonNode leader = a.get("/actuator/conch/" + office).json();

      assertThat(fieldNames(assertion)).containsExactly("held", "rev", "host", "id");
      assertThat(fieldNames(overview)).containsExactly("candidate", "offices", "group");
      assertThat(fieldNames(overview.get("offices").get(0)))
          .containsExactly("office", "state", "leader", "token", "timing", "candidacy", "jobs");
      assertThat(fieldNames(leader))
          .containsExactly("office", "host", "pid", "since", "id", "rev", "lease");
      assertThat(fieldNames(a.get("/actuator/conch/vacant-" + office).json()))
          .containsExactly("office", "error");
    }
  }

  @Test
  void transferThroughTheWriteOperationHandsOverAndTheAssertAndTheGaugeFollow() {
    String office = freshOffice("http");
    String assertion = "/actuator/conch/" + office + "/assert";
    String write = UNRESTRICTED;
    try (RunningApp a = app(etcd, office, "a", write);
        RunningApp b = app(etcd, office, "b", write)) {
      await().atMost(WAIT).until(() -> a.get(assertion).status() == 200);
      await().atMost(WAIT).until(() -> state(b, office).equals("FOLLOWING"));
      assertThat(gauge(a, "conch.leader", office)).isEqualTo(1.0);
      assertThat(gauge(b, "conch.leader", office)).isEqualTo(0.0);

      Response transfer = a.post("/actuator/conch/" + office, "{\"action\":\"transfer\"}");

      assertThat(transfer.status()).isEqualTo(200);
      assertThat(transfer.json().get("action").asString()).isEqualTo("transfer");
      await().atMost(WAIT).until(() -> b.get(assertion).status() == 200);
      assertThat(a.get(assertion).status()).isEqualTo(409);
      await().atMost(WAIT).until(() -> gauge(b, "conch.leader", office) == 1.0);
      assertThat(gauge(a, "conch.leader", office)).isEqualTo(0.0);
      await()
          .atMost(WAIT)
          .until(() -> gauge(a, "conch.transitions", office, "conch.kind:transferred") == 1.0);
      assertThat(gauge(b, "conch.transitions", office, "conch.kind:acquired")).isEqualTo(1.0);
      assertThat(gauge(b, "conch.campaign", office)).isEqualTo(1.0);

      await().atMost(WAIT).until(() -> state(a, office).equals("FOLLOWING"));
      assertThat(a.post("/actuator/conch/" + office, "{\"action\":\"transfer\"}").status())
          .isEqualTo(409);
      assertThat(b.post("/actuator/conch/" + office, "{\"action\":\"dance\"}").status())
          .isEqualTo(400);
      assertThat(b.post("/actuator/conch/elsewhere", "{\"action\":\"resign\"}").status())
          .isEqualTo(404);
      assertThat(b.post("/actuator/conch/" + office, "{\"action\":\"resign\"}").status())
          .isEqualTo(200);
      await().atMost(WAIT).until(() -> a.get(assertion).status() == 200);
      assertThat(state(b, office)).isEqualTo("RESIGNED");

      // The history: each term with how it ended and who asked, as any instance reads it.
      String history = "/actuator/conch/" + office + "/history";
      await().atMost(WAIT).until(() -> b.get(history).json().get("terms").size() == 3);
      JsonNode terms = b.get(history).json().get("terms");
      assertThat(terms.get(0).get("id").asString()).isEqualTo("a");
      assertThat(terms.get(0).get("reason").asString()).isEqualTo("transferred");
      assertThat(terms.get(0).get("detail").asString()).isEqualTo("handed to the next in line");
      assertThat(terms.get(1).get("id").asString()).isEqualTo("b");
      assertThat(terms.get(1).get("reason").asString()).isEqualTo("resigned");
      assertThat(terms.get(1).get("detail").asString())
          .isEqualTo("an operator asked, through the conch endpoint");
      assertThat(terms.get(1).get("vacantBeforeMs").isNumber()).isTrue();
      assertThat(terms.get(2).get("reason").isNull()).isTrue();
      assertThat(terms.get(2).get("token").asLong())
          .isEqualTo(a.get(assertion).json().get("rev").asLong());
      assertThat(b.get(history + "?n=1").json().get("terms").size()).isEqualTo(1);
      Response none = b.get("/actuator/conch/never-" + office + "/history");
      assertThat(none.status()).isEqualTo(404);
      assertThat(none.json().get("error").asString()).contains("has no recorded term");
      Response zero = b.get(history + "?n=0");
      assertThat(zero.status()).isEqualTo(400);
      assertThat(zero.json().get("error").asString())
          .isEqualTo("invalid n '0': a number of terms from 1 to 1000");
      assertThat(b.get(history + "?minRev=3").status()).isEqualTo(400);
      assertThat(b.get(assertion + "?n=3").status()).isEqualTo(400);
    }
  }

  @Test
  void transferToANamedCandidateHandsTheOfficeToItAndAnUnknownOneIsRefusedWithNothingChanged() {
    String office = freshOffice("http");
    String assertion = "/actuator/conch/" + office + "/assert";
    String group = "conch.balance.group=" + office;
    try (RunningApp a = app(etcd, office, "a", UNRESTRICTED, group);
        RunningApp b = app(etcd, office, "b", UNRESTRICTED, group);
        RunningApp c = app(etcd, office, "c", UNRESTRICTED, group)) {
      await().atMost(WAIT).until(() -> a.get(assertion).status() == 200);
      await().atMost(WAIT).until(() -> state(b, office).equals("FOLLOWING"));
      await().atMost(WAIT).until(() -> state(c, office).equals("FOLLOWING"));

      // c stands behind b: the hand-over skips b.
      Response transfer =
          a.post("/actuator/conch/" + office, "{\"action\":\"transfer\",\"to\":\"c\"}");

      assertThat(transfer.status()).as("%s", transfer).isEqualTo(200);
      assertThat(transfer.json().get("to").asString()).isEqualTo("c");
      await().atMost(WAIT).until(() -> c.get(assertion).status() == 200);
      assertThat(b.get(assertion).status()).isEqualTo(409);
      assertThat(a.get(assertion).status()).isEqualTo(409);
      long token = c.election().token().orElseThrow();

      Response unknown =
          c.post("/actuator/conch/" + office, "{\"action\":\"transfer\",\"to\":\"nobody\"}");

      assertThat(unknown.status()).isEqualTo(409);
      assertThat(unknown.json().get("error").asString()).contains("'nobody'");
      assertThat(c.election().isLeader()).isTrue();
      assertThat(c.election().token().orElseThrow()).isEqualTo(token);
      Response blank =
          c.post("/actuator/conch/" + office, "{\"action\":\"transfer\",\"to\":\" \"}");
      assertThat(blank.status()).isEqualTo(400);
      assertThat(blank.json().get("error").asString()).contains("candidate id");
      assertThat(
              c.post("/actuator/conch/" + office, "{\"action\":\"resign\",\"to\":\"a\"}").status())
          .isEqualTo(400);
      Response notLeading =
          b.post("/actuator/conch/" + office, "{\"action\":\"transfer\",\"to\":\"a\"}");
      assertThat(notLeading.status()).isEqualTo(409);
      assertThat(c.election().token().orElseThrow()).isEqualTo(token);

      JsonNode members = c.get("/actuator/conch").json().get("group").get("members");
      assertThat(fieldNames(members.get(0)))
          .containsExactly("id", "priority", "leads", "self", "receiving");
      assertThat(members).extracting(m -> m.get("id").asString()).containsExactly("a", "b", "c");
    }
  }

  /** The state of {@code office} in the application's overview. */
  private static String state(RunningApp app, String office) {
    for (JsonNode entry : app.get("/actuator/conch").json().get("offices")) {
      if (entry.get("office").asString().equals(office)) {
        return entry.get("state").asString();
      }
    }
    return "absent";
  }

  /** The id of the first office's leader in the application's overview, or "none". */
  private static String leaderId(RunningApp app) {
    JsonNode leader = app.get("/actuator/conch").json().get("offices").get(0).get("leader");
    return leader.isNull() ? "none" : leader.get("id").asString();
  }

  /** The first measurement of a meter of {@code office}, through the metrics endpoint. */
  static double gauge(RunningApp app, String meter, String office, String... tags) {
    StringBuilder path =
        new StringBuilder("/actuator/metrics/" + meter + "?tag=conch.office:" + office);
    for (String tag : tags) {
      path.append("&tag=").append(tag);
    }
    Response response = app.get(path.toString());
    if (response.status() != 200) {
      return -1;
    }
    return response.json().get("measurements").get(0).get("value").asDouble();
  }

  private static ByteSequence bytes(String text) {
    return ByteSequence.from(text, StandardCharsets.UTF_8);
  }

  private static List<String> fieldNames(JsonNode node) {
    return new ArrayList<>(node.propertyNames());
  }
}
