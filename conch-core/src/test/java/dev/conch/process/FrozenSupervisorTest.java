package dev.conch.process;

import static dev.conch.process.Runners.WAIT;
import static dev.conch.process.Runners.running;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.etcd.EtcdClients;
import dev.conch.etcd.EtcdSession;
import dev.conch.etcd.SessionOptions;
import dev.conch.test.EtcdExtension;
import io.etcd.jetcd.Client;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A frozen supervisor (SIGSTOP, a long GC pause) cannot stop its command, so the command may
 * overlap a successor's. That cannot be prevented; it must be visible and contained: the
 * successor's token is larger, a write fenced by the stale token is refused, and on waking the
 * supervisor kills its command at once, without the SIGTERM grace.
 */
class FrozenSupervisorTest {

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  @TempDir Path frozenDir;
  @TempDir Path successorDir;

  @Test
  void frozenHoldersTokenIsFencedOffAndItsCommandDiesAtOnceOnWaking() throws Exception {
    Process jvm =
        Runners.startJvm(
            FrozenJvm.class, frozenDir, frozenDir.toString(), etcd.cluster().endpoints());
    Runners frozen = new Runners(frozenDir);
    Runners successor = new Runners(successorDir);
    try (Client client =
            EtcdClients.builder(
                    EtcdClients.parseEndpoints(etcd.cluster().endpoints()), Duration.ofSeconds(2))
                .build();
        EtcdSession session =
            EtcdSession.open(client, SessionOptions.defaults().withTtl(Duration.ofSeconds(5)))) {
      await().atMost(WAIT).until(() -> !frozen.lines("term").isEmpty());
      String[] term = frozen.lines("term").get(0).split(" ");
      long pid = Long.parseLong(term[0]);
      long staleToken = Long.parseLong(term[1]);

      signal("STOP", jvm.pid());
      ExternalCommandRunner next =
          ExternalCommandRunner.builder("frozen", session::election)
              .killAfter(Duration.ofSeconds(1))
              .environment(Map.of("T", successorDir.toString()))
              .redirectOutput(Redirect.DISCARD)
              .command(List.of("sh", "-c", "echo $CONCH_REV > \"$T/term\"; sleep 1000"))
              .build();
      next.start();
      await().atMost(WAIT).until(() -> !successor.lines("term").isEmpty());
      long token = Long.parseLong(successor.lines("term").get(0).trim());

      assertThat(token).isGreaterThan(staleToken);
      assertThat(running(pid)).as("the frozen holder's command still runs: the overlap").isTrue();
      // A write fenced by the stale token is refused; the same write with the new token succeeds.
      String staleKey = "/conch/v1/elect/frozen/" + term[2];
      assertThat(fencedPut(staleKey, staleToken)).isEqualTo("FAILURE");
      String key =
          session.leader("frozen").map(h -> "/conch/v1/elect/frozen/" + h.leaseHex()).orElseThrow();
      assertThat(fencedPut(key, token)).isEqualTo("SUCCESS");

      long woke = System.nanoTime();
      signal("CONT", jvm.pid());
      await().atMost(WAIT).until(() -> !running(pid));
      // Killed at once: the 1.5 s SIGTERM grace was skipped because a successor may lead. The
      // command ignores SIGTERM, so a stop that gave the grace would take 1.5 s and log a TERM.
      assertThat(System.nanoTime() - woke).isLessThan(Duration.ofMillis(1500).toNanos());
      assertThat(frozen.lines("signals")).as("signals the frozen holder's command got").isEmpty();
      next.close();
    } finally {
      jvm.destroyForcibly();
      jvm.waitFor(10, TimeUnit.SECONDS);
    }
  }

  /**
   * The fenced write, done by etcdctl as a child's script would: put only if the leader key still
   * has this create revision. Returns etcdctl's verdict, SUCCESS or FAILURE.
   */
  private static String fencedPut(String leaderKey, long token) throws Exception {
    Process sh =
        new ProcessBuilder(
                "sh",
                "-c",
                "printf 'create(\"%s\") = \"%s\"\\n\\nput /fenced/work %s\\n\\n\\n' \"$1\" \"$2\" \"$2\""
                    + " | ETCDCTL_API=3 etcdctl --endpoints=\"$3\" txn",
                "fenced",
                leaderKey,
                Long.toString(token),
                etcd.cluster().endpoints())
            .redirectErrorStream(true)
            .start();
    String out = new String(sh.getInputStream().readAllBytes());
    assertThat(sh.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return out.lines().findFirst().orElse(out);
  }

  private static void signal(String signal, long pid) throws Exception {
    Process kill = new ProcessBuilder("kill", "-s", signal, Long.toString(pid)).start();
    assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
  }
}
