package dev.conch.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.State;
import dev.conch.test.EtcdExtension;
import dev.conch.test.Etcdctl;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@code conch.etcd.username} and {@code password} against an etcd with authentication on. */
class ConchEtcdAuthTest {

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private static final Duration WAIT = Duration.ofSeconds(20);

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(ConchAutoConfiguration.class))
          .withPropertyValues("conch.etcd.timeout=2s", "conch.etcd.username=root");

  @BeforeAll
  static void enableAuthentication() {
    String endpoints = etcd.cluster().endpoints();
    etcdctl(endpoints, "user", "add", "root:s3cret");
    etcdctl(endpoints, "auth", "enable");
    // From here on etcd refuses anonymous requests.
    assertThat(Etcdctl.run(endpoints, Duration.ofSeconds(10), "get", "/x").succeeded()).isFalse();
  }

  @Test
  void rightPasswordLetsTheInstanceLead() {
    this.contextRunner
        .withPropertyValues(
            "conch.etcd.endpoints=" + etcd.cluster().endpoints(),
            "conch.etcd.password=s3cret",
            "conch.office=auth-right")
        .run(
            context -> {
              Election election = context.getBean(Election.class);
              assertThat(election.awaitLeadership(WAIT)).isTrue();
              assertThat(election.leader().orElseThrow().rev())
                  .isEqualTo(election.token().orElseThrow());
            });
  }

  @Test
  void wrongPasswordIsNotFatalButTheInstanceNeverLeads() {
    this.contextRunner
        .withPropertyValues(
            "conch.etcd.endpoints=" + etcd.cluster().endpoints(),
            "conch.etcd.password=wrong",
            "conch.office=auth-wrong")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              Election election = context.getBean(Election.class);
              await()
                  .during(Duration.ofSeconds(3))
                  .atMost(Duration.ofSeconds(5))
                  .until(() -> !election.isLeader() && election.state() != State.LEADING);
            });
  }

  private static void etcdctl(String endpoints, String... args) {
    Etcdctl.Result result = Etcdctl.run(endpoints, Duration.ofSeconds(10), args);
    assertThat(result.succeeded()).as("etcdctl %s: %s", String.join(" ", args), result).isTrue();
  }
}
