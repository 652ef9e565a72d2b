package dev.conch.cli;

import dev.conch.EtcdUnavailableException;
import dev.conch.etcd.EtcdClients;
import dev.conch.etcd.EtcdSession;
import dev.conch.etcd.SessionOptions;
import dev.conch.local.LocalOffices;
import dev.conch.process.ExternalCommandRunner;
import io.etcd.jetcd.Client;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The training runs of class-data sharing: {@code bin/conch} runs one once with {@code
 * -XX:ArchiveClassesAtExit} for each of its two archives, and starts every later {@code conch} from
 * the archive of its form: {@code read} for a command line without {@code --} (the read forms,
 * help, usage errors), {@code run} for run mode.
 *
 * <p>Both load what a short command loads without an etcd: the read forms ({@code --who}, {@code
 * --assert}, …) against a stand-in for etcd's JSON gateway on a loopback port that answers every
 * request with one canned leader, then picocli's model and help. {@code run} adds the jetcd client,
 * gRPC and Netty of run mode, whose read goes to a loopback port that accepts and never answers and
 * times out quickly, and a runner that starts and stops a command. Measured, the archive from these
 * reads starts {@code --who} as fast as one trained on a real etcd; and the read archive, 5 MB
 * against the run archive's 18 MB, starts a {@code --who} about 30 ms sooner, the time the JVM
 * takes to map and relocate the difference (docs/cli.md).
 */
public final class CdsTraining {

  private CdsTraining() {}

  /**
   * Runs the training of the form {@code args[0]} ({@code read}, or {@code run}, the default);
   * exits 0 whatever the outcome, since the archive is only a speed-up.
   */
  public static void main(String[] args) throws IOException {
    boolean run = args.length == 0 || !args[0].equals("read");
    PrintStream out = System.out;
    PrintStream err = System.err;
    PrintStream none = new PrintStream(OutputStream.nullOutputStream());
    System.setOut(none);
    System.setErr(none);
    try (ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        ServerSocket gateway = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread answering = new Thread(() -> answer(gateway), "conch-training-gateway");
      answering.setDaemon(true);
      answering.start();
      String endpoint = "http://127.0.0.1:" + gateway.getLocalPort();
      Main.run(new String[] {"elect", "training", "--who", "--endpoints", endpoint});
      Main.run(new String[] {"elect", "training", "--who", "--json", "--endpoints", endpoint});
      Main.run(new String[] {"elect", "training", "--assert", "--json", "--endpoints", endpoint});
      Main.run(new String[] {"elect", "training", "--history", "--endpoints", endpoint});
      Main.run(new String[] {"elect", "training", "--why", "--json", "--endpoints", endpoint});
      Main.run(new String[] {"--help"});
      Main.run(new String[] {"elect", "--help"});
      Main.run(new String[] {"elect", "training", "--ttl", "nonsense", "--who"});
      if (run) {
        runMode(silent);
      }
    } finally {
      System.setOut(out);
      System.setErr(err);
    }
    System.exit(0);
  }

  /** Loads what run mode loads: the jetcd client's call and a runner's commands. */
  private static void runMode(ServerSocket silent) {
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
    runCommands();
  }

  /**
   * Loads what run mode loads when it wins and when it stops, so that a hand-over does not wait for
   * classes: a runner on in-memory offices runs a command that exits, and one that is stopped.
   */
  private static void runCommands() {
    LocalOffices offices = new LocalOffices();
    try {
      ExternalCommandRunner exits = trainingRunner(offices, List.of("true"));
      exits.start();
      exits.awaitExit(Duration.ofSeconds(5));
      ExternalCommandRunner stopped = trainingRunner(offices, List.of("sleep", "5"));
      stopped.start();
      long until = System.nanoTime() + Duration.ofSeconds(5).toNanos();
      while (stopped.childPid().isEmpty() && System.nanoTime() < until) {
        Thread.sleep(5);
      }
      stopped.stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      // Only a speed-up: a command that cannot run here loads most of the classes all the same.
    }
  }

  private static ExternalCommandRunner trainingRunner(LocalOffices offices, List<String> command) {
    return ExternalCommandRunner.builder("training", offices::election)
        .command(command)
        .killAfter(Duration.ofMillis(200))
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .redirectError(ProcessBuilder.Redirect.DISCARD)
        .build();
  }

  /** The canned answer of the stand-in gateway: one conch leader, as etcd 3.4 writes it. */
  private static final String RANGE =
      "{\"header\":{\"cluster_id\":\"1\",\"member_id\":\"2\",\"revision\":\"7\","
          + "\"raft_term\":\"2\"},\"kvs\":[{\"key\":\""
          + base64("/conch/v1/elect/training/694d8f1b2c3a4e01")
          + "\",\"create_revision\":\"5\",\"mod_revision\":\"6\",\"version\":\"2\","
          + "\"value\":\""
          + base64(
              "{\"office\":\"training\",\"host\":\"training\",\"pid\":1,"
                  + "\"since\":\"2026-01-01T00:00:00Z\",\"id\":\"training:1\"}")
          + "\",\"lease\":\"7587863035853639169\"}],\"count\":\"1\"}";

  /** Answers every request with {@link #RANGE} until the socket is closed. */
  private static void answer(ServerSocket gateway) {
    byte[] body = RANGE.getBytes(StandardCharsets.UTF_8);
    while (!gateway.isClosed()) {
      try (Socket call = gateway.accept()) {
        InputStream in = call.getInputStream();
        String head = readHead(in);
        Matcher length = CONTENT_LENGTH.matcher(head);
        in.readNBytes(length.find() ? Integer.parseInt(length.group(1)) : 0);
        OutputStream out = call.getOutputStream();
        out.write(
            ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                    + body.length
                    + "\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.write(body);
        out.flush();
      } catch (IOException | RuntimeException e) {
        // Closed at the end of the training, or a request it does not understand: next.
      }
    }
  }

  private static final Pattern CONTENT_LENGTH = Pattern.compile("(?i)content-length:\\s*(\\d+)");

  private static String readHead(InputStream in) throws IOException {
    StringBuilder head = new StringBuilder();
    int c;
    while ((c = in.read()) >= 0) {
      head.append((char) c);
      if (head.length() >= 4 && head.substring(head.length() - 4).equals("\r\n\r\n")) {
        break;
      }
    }
    return head.toString();
  }

  private static String base64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }
}
