package dev.conch.spring.boot.autoconfigure.health;

import static dev.conch.spring.boot.autoconfigure.ConchTestSupport.freshOffice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.State;
import dev.conch.process.ExternalCommandRunner;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.test.EtcdExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The runner's office requires {@code db}, against a real etcd member: when {@code db} turns DOWN
 * the runner's child is stopped and the office left, and once UP a fresh runner leads and runs the
 * command again with a newer token.
 */
@Timeout(120)
class HealthGatedRunnerEtcdTest {

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private static final Duration WAIT = Duration.ofSeconds(20);

  @Test
  void runnerStopsItsChildWhileDownAndRunsAgainOnceUp() {
    String office = freshOffice("runner");
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                ConchAutoConfiguration.class,
                HealthContributorRegistryAutoConfiguration.class,
                CandidacyHealthAutoConfiguration.class))
        .withBean("dbHealthIndicator", ToggledHealthIndicator.class)
        .withPropertyValues(
            "conch.etcd.endpoints=" + etcd.cluster().endpoints(),
            "conch.etcd.timeout=2s",
            "conch.ttl=30s",
            "conch.office=" + office,
            "conch.candidate.id=a",
            "conch.require-health=db",
            "conch.quarantine=0s",
            "conch.runner.command=sleep,600",
            "conch.runner.kill-after=2s")
        .run(
            context -> {
              Election election = context.getBean(Election.class);
              assertThat(election.awaitLeadership(WAIT)).isTrue();
              long token = election.token().orElseThrow();
              long pid = await().atMost(WAIT).until(() -> childPid(context), p -> p != 0);

              context.getBean(ToggledHealthIndicator.class).down();
              await()
                  .atMost(WAIT)
                  .until(() -> !ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
              await().atMost(WAIT).until(() -> election.state() == State.DENIED);
              assertThat(election.isLeader()).isFalse();

              context.getBean(ToggledHealthIndicator.class).up();
              assertThat(election.awaitLeadership(WAIT)).isTrue();
              assertThat(election.token().orElseThrow()).isGreaterThan(token);
              long next = await().atMost(WAIT).until(() -> childPid(context), p -> p != 0);
              assertThat(next).isNotEqualTo(pid);
            });
  }

  private static long childPid(org.springframework.context.ApplicationContext context) {
    return context.getBean(ExternalCommandRunner.class).childPid().orElse(0L);
  }
}
