package dev.conch.spring.boot.autoconfigure;

import static dev.conch.spring.boot.autoconfigure.ConchTestSupport.freshOffice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.Leadership;
import dev.conch.LossReason;
import dev.conch.State;
import dev.conch.spring.OnLeadership;
import dev.conch.spring.OnLeadership.Transition;
import dev.conch.test.EtcdExtension;
import dev.conch.test.TcpProxy;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Whole application contexts against a real etcd member: instances compete for an office, hooks and
 * events follow each other with the right token, and shutdown hands over at once. The TTL is 30 s,
 * so that a hand-over by lease expiry would be unmistakable.
 */
public class ConchEtcdTest {

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private static final Duration WAIT = Duration.ofSeconds(20);

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(ConchAutoConfiguration.class))
          .withBean(Recorder.class)
          .withBean(Hooks.class)
          .withPropertyValues("conch.ttl=30s", "conch.etcd.timeout=2s");

  private ApplicationContextRunner instance(String office, String id) {
    return instance(office, id, etcd.cluster().endpoints());
  }

  private ApplicationContextRunner instance(String office, String id, String endpoints) {
    return this.contextRunner.withPropertyValues(
        "conch.etcd.endpoints=" + endpoints, "conch.office=" + office, "conch.candidate.id=" + id);
  }

  @Test
  void twoInstancesCompeteForAnOfficeAndExactlyOneLeads() {
    String office = freshOffice("boot");
    instance(office, "a")
        .run(
            a -> {
              Election first = a.getBean(Election.class);
              assertThat(first.awaitLeadership(WAIT)).isTrue();
              instance(office, "b")
                  .run(
                      b -> {
                        Election second = b.getBean(Election.class);
                        await().atMost(WAIT).until(() -> second.state() == State.FOLLOWING);
                        assertThat(first.isLeader()).isTrue();
                        assertThat(second.isLeader()).isFalse();
                        assertThat(second.leader().orElseThrow().id()).isEqualTo("a");
                        await()
                            .atMost(WAIT)
                            .until(
                                () ->
                                    b.getBean(Recorder.class).observed().stream()
                                        .anyMatch(e -> e.getToken().equals(first.token())));
                      });
            });
  }

  @Test
  void hooksAndEventsFollowEachOtherWithTheLeadersToken() {
    String office = freshOffice("boot");
    instance(office, "a")
        .run(
            a -> {
              Election first = a.getBean(Election.class);
              assertThat(first.awaitLeadership(WAIT)).isTrue();
              long token = first.token().orElseThrow();
              assertThat(first.leader().orElseThrow().rev()).isEqualTo(token);
              Recorder firstRecorder = a.getBean(Recorder.class);
              instance(office, "b")
                  .run(
                      b -> {
                        Election second = b.getBean(Election.class);
                        await().atMost(WAIT).until(() -> second.state() == State.FOLLOWING);
                        a.close();
                        assertThat(second.awaitLeadership(WAIT)).isTrue();
                        long next = second.token().orElseThrow();
                        assertThat(next).isGreaterThan(token);
                        assertThat(firstRecorder.lines())
                            .containsExactly(
                                "hook acquired " + token,
                                "event acquired " + office + " " + token,
                                "hook lost " + token + " RESIGNED client open",
                                "event lost " + office + " " + token + " RESIGNED");
                        Recorder recorder = b.getBean(Recorder.class);
                        await().atMost(WAIT).until(() -> recorder.lines().size() == 2);
                        assertThat(recorder.lines())
                            .containsExactly(
                                "hook acquired " + next, "event acquired " + office + " " + next);
                      });
            });
  }

  @Test
  void closingTheLeadersContextHandsTheOfficeOverAtOnce() {
    String office = freshOffice("boot");
    instance(office, "a")
        .run(
            a -> {
              assertThat(a.getBean(Election.class).awaitLeadership(WAIT)).isTrue();
              instance(office, "b")
                  .run(
                      b -> {
                        Election second = b.getBean(Election.class);
                        await().atMost(WAIT).until(() -> second.state() == State.FOLLOWING);
                        long start = System.nanoTime();
                        a.close();
                        // Far below the 30 s TTL: the key was deleted, not left to expire.
                        assertThat(second.awaitLeadership(Duration.ofSeconds(5))).isTrue();
                        assertThat(Duration.ofNanos(System.nanoTime() - start))
                            .isLessThan(Duration.ofSeconds(5));
                      });
            });
  }

  @Test
  void etcdOutOfReachAtStartupIsNotFatalAndTheInstanceLeadsOnceItAnswers() {
    String office = freshOffice("boot");
    try (TcpProxy proxy = TcpProxy.start("127.0.0.1", etcd.cluster().member(0).clientPort())) {
      proxy.blackhole();
      instance(office, "a", proxy.endpoint())
          .withPropertyValues("conch.etcd.timeout=1s")
          .run(
              context -> {
                assertThat(context).hasNotFailed();
                Election election = context.getBean(Election.class);
                assertThat(election.awaitLeadership(Duration.ofSeconds(2))).isFalse();
                proxy.restore();
                proxy.dropConnections();
                assertThat(election.awaitLeadership(Duration.ofSeconds(30))).isTrue();
              });
    }
  }

  /** Hooks of every test: records each transition, and whether etcd still answers on loss. */
  static class Hooks {

    private final Recorder recorder;

    private final ObjectProvider<Client> client;

    Hooks(Recorder recorder, ObjectProvider<Client> client) {
      this.recorder = recorder;
      this.client = client;
    }

    @OnLeadership
    void acquired(Leadership leadership) {
      this.recorder.add("hook acquired " + leadership.token());
    }

    @OnLeadership(on = Transition.LOST)
    void lost(Leadership leadership, LossReason reason) {
      this.recorder.add(
          "hook lost " + leadership.token() + " " + reason + " client " + clientState());
    }

    private String clientState() {
      try {
        ByteSequence key = ByteSequence.from("/conch-test/probe", StandardCharsets.UTF_8);
        this.client.getObject().getKVClient().get(key).get(5, TimeUnit.SECONDS);
        return "open";
      } catch (Exception ex) {
        return "closed (" + ex + ")";
      }
    }
  }
}
