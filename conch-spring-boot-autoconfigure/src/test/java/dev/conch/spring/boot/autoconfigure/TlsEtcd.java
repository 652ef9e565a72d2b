package dev.conch.spring.boot.autoconfigure;

import static org.awaitility.Awaitility.await;

import dev.conch.test.Etcdctl;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One etcd member that serves clients over TLS only and requires client certificates.
 *
 * <p>{@code EtcdCluster} cannot start it: its health probe speaks plain HTTP to the client port,
 * and etcd serves TLS only on {@code https://} listen URLs, whose port the cluster chooses after
 * any extra flags are fixed.
 */
final class TlsEtcd implements AutoCloseable {

  private final Process process;

  private final String endpoint;

  private TlsEtcd(Process process, String endpoint) {
    this.process = process;
    this.endpoint = endpoint;
  }

  static TlsEtcd start(Path dir, TestCertificates certificates) throws IOException {
    String client = "https://127.0.0.1:" + freePort();
    String peer = "http://127.0.0.1:" + freePort();
    List<String> command =
        List.of(
            etcd(),
            "--name=tls",
            "--data-dir=" + dir.resolve("data"),
            "--listen-client-urls=" + client,
            "--advertise-client-urls=" + client,
            "--listen-peer-urls=" + peer,
            "--initial-advertise-peer-urls=" + peer,
            "--initial-cluster=tls=" + peer,
            "--cert-file=" + certificates.serverCertificate(),
            "--key-file=" + certificates.serverKey(),
            "--trusted-ca-file=" + certificates.ca(),
            "--client-cert-auth");
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("etcd.log").toFile());
    // etcd reads ETCD_* variables as flags; a developer's shell must not leak in.
    builder.environment().keySet().removeIf(name -> name.startsWith("ETCD"));
    TlsEtcd etcd = new TlsEtcd(builder.start(), client);
    try {
      await()
          .atMost(Duration.ofSeconds(20))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> etcd.isHealthy(certificates));
    } catch (RuntimeException ex) {
      etcd.close();
      throw new IllegalStateException(
          "TLS etcd did not become healthy:\n" + Files.readString(dir.resolve("etcd.log")), ex);
    }
    return etcd;
  }

  String endpoint() {
    return this.endpoint;
  }

  private boolean isHealthy(TestCertificates certificates) {
    if (!this.process.isAlive()) {
      throw new IllegalStateException("etcd exited with " + this.process.exitValue());
    }
    return Etcdctl.run(
            this.endpoint,
            Duration.ofSeconds(5),
            "--cacert=" + certificates.ca(),
            "--cert=" + certificates.clientCertificate(),
            "--key=" + certificates.clientKey(),
            "--dial-timeout=1s",
            "--command-timeout=2s",
            "endpoint",
            "health")
        .succeeded();
  }

  @Override
  public void close() {
    this.process.destroyForcibly();
    try {
      this.process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException ex) {
      Thread.currentThread().interrupt();
    }
  }

  private static String etcd() {
    String fromEnv = System.getenv("ETCD_BIN");
    return (fromEnv != null && !fromEnv.isBlank()) ? fromEnv : "etcd";
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
