package dev.conch.cli;

import dev.conch.EtcdUnavailableException;
import dev.conch.etcd.EtcdClients;
import dev.conch.etcd.EtcdSession;
import dev.conch.etcd.SessionOptions;
import io.etcd.jetcd.Client;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Optional;

/**
 * The training run of class-data sharing: {@code bin/conch} runs it once with {@code
 * -XX:ArchiveClassesAtExit} and starts every later {@code conch} from that archive.
 *
 * <p>It loads what a short command loads (picocli's model and help, the jetcd client, gRPC, Netty,
 * a session and a leader read) without an etcd: the read goes to a loopback port that accepts and
 * never answers, and times out quickly. Measured, the archive from this failing read starts {@code
 * --who} as fast as one trained on a real etcd.
 */
public final class CdsTraining {

  private CdsTraining() {}

  /** Runs the training; exits 0 whatever the outcome, since the archive is only a speed-up. */
  public static void main(String[] args) throws IOException {
    PrintStream out = System.out;
    PrintStream err = System.err;
    PrintStream none = new PrintStream(OutputStream.nullOutputStream());
    System.setOut(none);
    System.setErr(none);
    try (ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Main.run(new String[] {"--help"});
      Main.run(new String[] {"elect", "--help"});
      Main.run(new String[] {"elect", "training", "--ttl", "nonsense", "--who"});
      Client client =
          EtcdClients.builder(
                  EtcdClients.parseEndpoints("http://127.0.0.1:" + silent.getLocalPort()),
                  Duration.ofMillis(300))
              .build();
      SessionOptions options = SessionOptions.defaults().withTimeout(Duration.ofMillis(300));
      try (EtcdSession session = EtcdSession.open(client, options)) {
        session.leader("training");
      } catch (EtcdUnavailableException expected) {
        // The point was to load the classes of the call, not to answer it.
      }
      Views.leader("training", Optional.empty(), true);
    } finally {
      System.setOut(out);
      System.setErr(err);
    }
    System.exit(0);
  }
}
