package dev.conch.process;

import static dev.conch.process.Runners.WAIT;
import static dev.conch.process.Runners.sh;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.etcd.EtcdClients;
import dev.conch.etcd.EtcdSession;
import dev.conch.etcd.SessionOptions;
import dev.conch.test.EtcdExtension;
import dev.conch.test.Etcdctl;
import io.etcd.jetcd.Client;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stop that begins as a resign gives the command its SIGTERM grace; a deletion of the key learned
 * while it runs means a successor may lead, and the grace ends at once (SIGKILL).
 */
@Timeout(120)
class KeyDeletedDuringStopTest {

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  @TempDir Path dir;
  private Runners runners;

  @BeforeEach
  void runners() {
    runners = new Runners(dir);
  }

  @AfterEach
  void close() {
    runners.close();
  }

  @Test
  void keyDeletedWhileTheRunnerStopsItsCommandEndsTheSigtermGraceAtOnce() throws Exception {
    Client client =
        runners.track(
            EtcdClients.builder(
                    EtcdClients.parseEndpoints(etcd.cluster().endpoints()), Duration.ofSeconds(2))
                .build());
    EtcdSession session =
        runners.track(
            EtcdSession.open(
                client,
                SessionOptions.defaults()
                    .withTtl(Duration.ofSeconds(90))
                    .withTimeout(Duration.ofSeconds(1))));
    String office = "stopping-" + System.nanoTime() % 100000;
    ExternalCommandRunner runner =
        runners.start(
            runners
                .builder(office, session::election)
                // A grace far longer than this test waits: only SIGKILL ends the command in time.
                .killAfter(Duration.ofSeconds(60))
                .command(
                    sh(
                        "trap 'echo term >> \"$T/signals\"' TERM; echo $CONCH_LEASE > \"$T/lease\";"
                            + " echo $$ > \"$T/pid\"; while :; do sleep 0.1; done")));
    long pid = runners.awaitPid("pid");
    String key = "/conch/v1/elect/" + office + "/" + runners.lines("lease").get(0);

    Thread stopping = new Thread(runner::stop, "stopping-runner");
    stopping.start(); // as on shutdown: the command gets SIGTERM and its grace, then the key goes
    await().atMost(WAIT).until(() -> runners.lines("signals").contains("term"));
    Etcdctl.Result deleted = Etcdctl.run(etcd.cluster().endpoints(), WAIT, "del", key);
    assertThat(deleted.succeeded()).as(deleted.stderr()).isTrue();

    await().atMost(WAIT).until(() -> !Runners.running(pid));
    stopping.join(WAIT.toMillis());
    assertThat(stopping.isAlive()).isFalse();
  }
}
