package dev.conch.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class EtcdctlTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  @Test
  void electedCandidateIsSeenByAnObserverAndResignsOnInterrupt(EtcdCluster cluster) {
    String endpoints = cluster.endpoints();
    try (Etcdctl.Background observer = Etcdctl.start(endpoints, "elect", "-l", "billing");
        Etcdctl.Background first = Etcdctl.start(endpoints, "elect", "billing", "node-1")) {
      first.awaitLine("node-1"::equals, WAIT);
      observer.awaitLine("node-1"::equals, WAIT);

      try (Etcdctl.Background second = Etcdctl.start(endpoints, "elect", "billing", "node-2")) {
        first.interrupt();

        assertThat(first.awaitExit(WAIT)).isTrue();
        second.awaitLine("node-2"::equals, WAIT);
        observer.awaitLine("node-2"::equals, WAIT);
      }
    }
  }

  @Test
  void awaitLineReportsWhatItSawWhenOutputEnds(EtcdCluster cluster) {
    try (Etcdctl.Background bad = Etcdctl.start(cluster.endpoints(), "no-such-command")) {
      assertThatThrownBy(() -> bad.awaitLine("never"::equals, WAIT))
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining("output ended")
          .hasMessageContaining("no-such-command");
    }
  }

  @Test
  void runKillsACommandThatOutlivesItsTimeout(EtcdCluster cluster) {
    Etcdctl.Result result = Etcdctl.run(cluster.endpoints(), Duration.ofMillis(500), "watch", "k");

    assertThat(result.timedOut()).isTrue();
    assertThat(result.succeeded()).isFalse();
    assertThat(result.stderr()).contains("was killed");
  }

  @Test
  void runReportsTheExitCodeAndStderrOfAFailure(EtcdCluster cluster) {
    Etcdctl.Result result = Etcdctl.run(cluster.endpoints(), WAIT, "no-such-command");

    assertThat(result.exitCode()).isPositive();
    assertThat(result.stderr()).isNotBlank();
  }
}
