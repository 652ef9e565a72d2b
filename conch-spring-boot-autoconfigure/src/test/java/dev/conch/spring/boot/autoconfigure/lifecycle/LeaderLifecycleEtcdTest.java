package dev.conch.spring.boot.autoconfigure.lifecycle;

import static dev.conch.spring.boot.autoconfigure.ConchTestSupport.freshOffice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.State;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.test.EtcdExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A lifecycle bean bound to an office on two instances against a real etcd member: it runs on the
 * leader only, and moves to the other instance when the leader shuts down, stopped there before it
 * starts here.
 */
@Timeout(120)
class LeaderLifecycleEtcdTest {

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private static final Duration WAIT = Duration.ofSeconds(20);

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ConchAutoConfiguration.class, LeaderLifecycleAutoConfiguration.class))
          .withBean("ordersContainer", Container.class)
          .withPropertyValues(
              "conch.ttl=30s",
              "conch.etcd.timeout=2s",
              "conch.offices.orders.lifecycle-beans=ordersContainer",
              // First come, first served: the fair share would move one of the two offices.
              "conch.balance.enabled=false");

  private ApplicationContextRunner instance(String app, String id) {
    return this.contextRunner.withPropertyValues(
        "conch.etcd.endpoints=" + etcd.cluster().endpoints(),
        "spring.application.name=" + app,
        "conch.candidate.id=" + id);
  }

  @Test
  void boundBeanRunsOnTheLeaderOnlyAndMovesWithTheOffice() {
    String app = freshOffice("lifecycle");
    instance(app, "a")
        .run(
            a -> {
              Container first = a.getBean(Container.class);
              Election firstElection = a.getBean("conchElection.orders", Election.class);
              assertThat(firstElection.awaitLeadership(WAIT)).isTrue();
              await().atMost(WAIT).until(first::isRunning);
              instance(app, "b")
                  .run(
                      b -> {
                        Container second = b.getBean(Container.class);
                        Election secondElection = b.getBean("conchElection.orders", Election.class);
                        await().atMost(WAIT).until(() -> secondElection.state() == State.FOLLOWING);
                        assertThat(second.isRunning()).isFalse();
                        assertThat(second.history).isEmpty();
                        a.close();
                        assertThat(first.history).containsExactly("start", "stop");
                        await().atMost(WAIT).until(second::isRunning);
                        assertThat(secondElection.isLeader()).isTrue();
                      });
            });
  }

  @Test
  void namedHandOverStopsTheBoundBeanBeforeTheTargetStartsIt() {
    String app = freshOffice("lifecycle");
    instance(app, "a")
        .run(
            a -> {
              Container first = a.getBean(Container.class);
              Election firstElection = a.getBean("conchElection.orders", Election.class);
              assertThat(firstElection.awaitLeadership(WAIT)).isTrue();
              await().atMost(WAIT).until(first::isRunning);
              instance(app, "b")
                  .run(
                      b -> {
                        Container second = b.getBean(Container.class);
                        Election secondElection = b.getBean("conchElection.orders", Election.class);
                        await().atMost(WAIT).until(() -> secondElection.state() == State.FOLLOWING);

                        firstElection.transfer("b");

                        // Stopped in the lose hooks, as on a resign, before the hand-over returns.
                        assertThat(first.history).containsExactly("start", "stop");
                        await().atMost(WAIT).until(second::isRunning);
                        assertThat(secondElection.isLeader()).isTrue();
                        assertThat(firstElection.isLeader()).isFalse();
                      });
            });
  }
}
