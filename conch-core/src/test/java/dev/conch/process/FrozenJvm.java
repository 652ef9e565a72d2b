package dev.conch.process;

import dev.conch.etcd.EtcdClients;
import dev.conch.etcd.EtcdSession;
import dev.conch.etcd.SessionOptions;
import io.etcd.jetcd.Client;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A supervisor on real etcd (args[1] = endpoints) whose command records its token and beats into
 * files in args[0], and logs (and ignores) SIGTERM there, for {@link FrozenSupervisorTest}, which
 * freezes this JVM with SIGSTOP.
 */
public final class FrozenJvm {

  private FrozenJvm() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    Client client =
        EtcdClients.builder(EtcdClients.parseEndpoints(args[1]), Duration.ofSeconds(2)).build();
    EtcdSession session =
        EtcdSession.open(client, SessionOptions.defaults().withTtl(Duration.ofSeconds(5)));
    ExternalCommandRunner.builder("frozen", session::election)
        .killAfter(Duration.ofMillis(1500)) // grace that a successor-may-lead loss must skip
        .environment(Map.of("T", dir.toString()))
        .redirectOutput(Redirect.DISCARD)
        .redirectError(Redirect.DISCARD)
        .command(
            List.of(
                "sh",
                "-c",
                // It outlives SIGTERM (logged, then ignored), so only a SIGKILL ends it: a stop
                // that gave it the grace would take the whole 1.5 s and leave a line in "signals".
                "trap 'echo TERM >> \"$T/signals\"' TERM;"
                    + " echo $$ $CONCH_REV $CONCH_LEASE > \"$T/term\";"
                    + " while :; do date +%s%N >> \"$T/beats\"; sleep 0.05; done"))
        .build()
        .start();
    Thread.currentThread().join(Duration.ofMinutes(10).toMillis()); // until the test kills us
  }
}
