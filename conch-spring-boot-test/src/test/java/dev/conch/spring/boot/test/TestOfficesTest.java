package dev.conch.spring.boot.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import dev.conch.Holder;
import dev.conch.Leadership;
import dev.conch.LossReason;
import dev.conch.State;
import dev.conch.spring.LeaderLifecycle;
import dev.conch.spring.LeadershipLostEvent;
import dev.conch.spring.OnLeadership;
import dev.conch.spring.OnLeadership.Transition;
import dev.conch.spring.leaderonly.CurrentLeadership;
import dev.conch.spring.leaderonly.LeaderOnly;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;

/**
 * Every scripted transition reaching what an application has: {@code @OnLeadership} methods,
 * events, {@code @LeaderOnly} methods, a lifecycle bean, the actuator endpoint and health, in a
 * whole application over real HTTP.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "spring.application.name=shop",
      "conch.candidate.id=me",
      "management.endpoints.web.exposure.include=conch,health",
      "management.endpoint.health.show-details=always"
    })
@AutoConfigureTestOffices
@Timeout(60)
class TestOfficesTest {

  @Autowired TestOffices offices;

  @Autowired App app;

  @Autowired Job job;

  @Autowired Container container;

  @LocalServerPort int port;

  @Test
  void instanceLeadsWhenTheFirstLineRuns() {
    assertThat(this.offices.election("shop").state()).isEqualTo(State.LEADING);
    Leadership term = this.offices.election("shop").leadership().orElseThrow();
    assertThat(this.app.lines).contains("acquired " + term.token());
    assertThat(this.job.run()).isEqualTo(term.token());
  }

  @Test
  void revokeEndsTheTermAfterItsHooksRanAndKeepsTheInstanceOutUntilGranted() {
    Leadership term = this.offices.awaitLeading("shop");
    assertThat(this.job.run()).isEqualTo(term.token());
    await().atMost(Duration.ofSeconds(10)).until(this.container::isRunning);
    Leadership ended = this.offices.revoke("shop");
    assertThat(ended.token()).isEqualTo(term.token());
    assertThat(this.app.lines)
        .contains(
            "acquired " + term.token(),
            "lost " + term.token() + " KEY_DELETED",
            "event " + term.token() + " KEY_DELETED");
    assertThat(this.container.history).contains("start", "stop");
    // Alone in the office, the instance campaigns again at once: it must not win until granted.
    await()
        .during(Duration.ofSeconds(1))
        .atMost(Duration.ofSeconds(5))
        .until(() -> !this.offices.election("shop").isLeader());
    assertThat(this.offices.store().leader("shop")).isEmpty();
    assertThat(this.job.run()).isNull();
    Leadership next = this.offices.grant("shop");
    assertThat(next.token()).isGreaterThan(term.token());
    assertThat(this.job.run()).isEqualTo(next.token());
    this.offices.awaitRuns(Job.class, "run", 2);
    assertThat(this.offices.runs(Job.class, "run")).isEqualTo(2);
    assertThat(this.offices.officeRuns("shop")).isEqualTo(2);
    assertThat(this.offices.skips(Job.class, "run")).isEqualTo(1);
  }

  @Test
  void expireKeepsTheInstanceOutAndFailedRenewalLetsItLeadAgain() {
    Leadership first = this.offices.expire("shop");
    assertThat(this.offices.election("shop").isLeader()).isFalse();
    this.offices.grant("shop");
    Leadership second = this.offices.failRenewal("shop");
    Leadership third = this.offices.awaitLeading("shop");
    assertThat(third.token()).isGreaterThan(second.token());
    assertThat(this.app.lines)
        .contains(
            "lost " + first.token() + " LEASE_EXPIRED",
            "lost " + second.token() + " RENEWAL_FAILED");
  }

  @Test
  void anotherLeaderKeepsThisInstanceOutUntilGranted() throws Exception {
    long mine = this.offices.awaitLeading("shop").token();
    Holder other = this.offices.electOther("shop", "node-b");
    assertThat(other.id()).isEqualTo("node-b");
    assertThat(other.rev()).isGreaterThan(mine);
    assertThat(this.offices.awaitFollowing("shop").id()).isEqualTo("node-b");
    assertThat(this.job.run()).isNull();
    assertThat(this.offices.skips(Job.class, "run")).isEqualTo(1);
    assertThat(this.container.isRunning()).isFalse();
    assertThat(get("/actuator/conch/shop").body())
        .contains("\"id\":\"node-b\"", "\"rev\":" + other.rev());
    assertThat(get("/actuator/conch/shop/assert").statusCode()).isEqualTo(409);
    assertThat(get("/actuator/health/conch").body()).contains("\"status\":\"UP\"");
    Leadership back = this.offices.grant("shop");
    assertThat(back.token()).isGreaterThan(other.rev());
    assertThat(get("/actuator/conch/shop/assert").statusCode()).isEqualTo(200);
    assertThat(this.job.run()).isEqualTo(back.token());
    await().atMost(Duration.ofSeconds(10)).until(this.container::isRunning);
  }

  @Test
  void anUnknownOfficeOrMethodIsRefusedAtOnceWithTheKnownOnes() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> this.offices.officeRuns("invoices"))
        .withMessageContaining("'invoices'")
        .withMessageContaining("[shop]")
        .withMessageContaining("Job.run()");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> this.offices.awaitRuns(Job.class, "sendInvoices", 1))
        .withMessageContaining("Job.run()");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> this.offices.skips(Job.class, "sendInvoices"))
        .withMessageContaining(Job.class.getName())
        .withMessageContaining("'sendInvoices'")
        .withMessageContaining("Job.run()");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> this.offices.lastRun(Job.class, "sendInvoices"))
        .withMessageContaining("'sendInvoices'");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> this.offices.taskRuns("shop"))
        .withMessageContaining("No leader-only task 'shop'");
    assertThat(this.offices.officeRuns("shop")).isZero();
    assertThat(this.offices.runs(Job.class, "run")).isZero();
  }

  private HttpResponse<String> get(String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }

  @SpringBootApplication(proxyBeanMethods = false)
  static class App {

    final List<String> lines = new CopyOnWriteArrayList<>();

    @OnLeadership
    void acquired(Leadership leadership) {
      this.lines.add("acquired " + leadership.token());
    }

    @OnLeadership(on = Transition.LOST)
    void lost(Leadership leadership, LossReason reason) {
      this.lines.add("lost " + leadership.token() + " " + reason);
    }

    @EventListener
    void on(LeadershipLostEvent event) {
      this.lines.add("event " + event.getToken() + " " + event.getReason());
    }

    @Bean
    Job job() {
      return new Job();
    }

    @Bean
    @LeaderLifecycle
    Container container() {
      return new Container();
    }
  }

  static class Job {

    @LeaderOnly
    Long run() {
      return CurrentLeadership.get().token();
    }
  }

  static class Container implements SmartLifecycle {

    final List<String> history = new CopyOnWriteArrayList<>();

    private volatile boolean running;

    @Override
    public void start() {
      this.running = true;
      this.history.add("start");
    }

    @Override
    public void stop() {
      this.running = false;
      this.history.add("stop");
    }

    @Override
    public boolean isRunning() {
      return this.running;
    }

    @Override
    public boolean isAutoStartup() {
      return false;
    }
  }
}
