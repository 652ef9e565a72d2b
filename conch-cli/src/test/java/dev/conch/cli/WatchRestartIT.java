package dev.conch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.test.EtcdCluster;
import dev.conch.test.EtcdExtension;
import dev.conch.test.Etcdctl;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code --watch} goes on through an etcd restart, reading the state again: its own cluster. */
class WatchRestartIT {

  private static final Duration WAIT = Duration.ofSeconds(30);

  @RegisterExtension final EtcdExtension etcd = EtcdExtension.members(1);

  @Test
  void survivesAnEtcdRestartAndSeesChangesMadeAfterIt(EtcdCluster cluster) {
    String endpoints = cluster.endpoints();
    try (Conch.Running watch = Conch.at(endpoints).start("elect", "r", "--watch")) {
      watch.awaitLine("r -"::equals, WAIT);

      cluster.member(0).stop();
      watch.awaitErrorLine(l -> l.contains("etcd unreachable"), WAIT);
      cluster.member(0).start();

      try (Etcdctl.Background alpha =
          Etcdctl.start(endpoints, "elect", "/conch/v1/elect/r", "alpha")) {
        watch.awaitLine(l -> l.startsWith("r alpha rev="), WAIT);
        // etcdctl elect handles SIGINT by resigning only once it printed its win: a signal between
        // its Campaign and that print ends it without a resign, and its key lives for 60 s.
        alpha.awaitLine("alpha"::equals, WAIT);
        alpha.interrupt();
        watch.awaitLine(l -> l.equals("r -") && watch.lines().size() == 3, WAIT);
      }
      assertThat(watch.lines()).hasSize(3);
      assertThat(watch.isAlive()).isTrue();
    }
  }
}
