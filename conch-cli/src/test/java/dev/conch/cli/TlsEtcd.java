package dev.conch.cli;

import static org.awaitility.Awaitility.await;

import dev.conch.test.Etcdctl;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One etcd member serving clients over TLS with client-certificate auth, and the PEM files a client
 * needs: a CA, a server certificate for 127.0.0.1, a client certificate (openssl makes them).
 * conch-test's clusters speak plain HTTP, hence this small one of its own.
 */
final class TlsEtcd implements AutoCloseable {

  final Path ca;
  final Path cert;
  final Path key;
  final String endpoint;

  /** A CA that signed neither etcd's certificate nor the client's. */
  final Path otherCa;

  /** A client certificate and key that etcd's CA did not sign (self-signed). */
  final Path otherCert;

  final Path otherKey;
  private final Process etcd;

  /** An etcd whose certificate allows client auth too, as etcd's JSON gateway needs (see below). */
  TlsEtcd(Path dir) throws IOException {
    this(dir, true);
  }

  /**
   * @param gatewayUsable whether the server certificate also allows client auth: with {@code
   *     --client-cert-auth}, etcd 3.4's JSON gateway presents the server's certificate to etcd's
   *     own gRPC port, and without that usage every gateway request fails (conch then reads over
   *     gRPC)
   */
  TlsEtcd(Path dir, boolean gatewayUsable) throws IOException {
    ca = dir.resolve("ca.pem");
    cert = dir.resolve("client.pem");
    key = dir.resolve("client.key");
    openssl(
        dir,
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=conch-test-ca",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem");
    sign(
        dir,
        "server",
        "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth"
            + (gatewayUsable ? ",clientAuth" : ""));
    otherCa = dir.resolve("other-ca.pem");
    otherCert = dir.resolve("other-client.pem");
    otherKey = dir.resolve("other-client.key");
    openssl(
        dir,
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=conch-test-other",
        "-keyout",
        "other-client.key",
        "-out",
        "other-client.pem");
    Files.copy(otherCert, otherCa);
    sign(dir, "client", "extendedKeyUsage=clientAuth");
    int clientPort = freePort();
    int peerPort = freePort();
    endpoint = "https://127.0.0.1:" + clientPort;
    String peer = "http://127.0.0.1:" + peerPort;
    ProcessBuilder builder =
        new ProcessBuilder(
                "etcd",
                "--name",
                "tls",
                "--data-dir",
                dir.resolve("data").toString(),
                "--listen-client-urls",
                endpoint,
                "--advertise-client-urls",
                endpoint,
                "--listen-peer-urls",
                peer,
                "--initial-advertise-peer-urls",
                peer,
                "--initial-cluster",
                "tls=" + peer,
                "--cert-file",
                dir.resolve("server.pem").toString(),
                "--key-file",
                dir.resolve("server.key").toString(),
                "--client-cert-auth",
                "--trusted-ca-file",
                ca.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("etcd.log").toFile());
    builder.environment().keySet().removeIf(name -> name.startsWith("ETCD"));
    etcd = builder.start();
    try {
      awaitHealthy();
    } catch (RuntimeException | Error e) {
      close();
      throw e;
    }
  }

  private void awaitHealthy() {
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () ->
                etcd.isAlive()
                    && Etcdctl.run(
                            endpoint,
                            Duration.ofSeconds(5),
                            "--cacert",
                            ca.toString(),
                            "--cert",
                            cert.toString(),
                            "--key",
                            key.toString(),
                            "endpoint",
                            "health")
                        .succeeded());
  }

  @Override
  public void close() {
    etcd.destroyForcibly();
    try {
      etcd.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void sign(Path dir, String name, String extensions) throws IOException {
    Files.writeString(dir.resolve(name + ".ext"), extensions + "\n");
    openssl(
        dir,
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=" + name,
        "-keyout",
        name + ".key",
        "-out",
        name + ".csr");
    openssl(
        dir,
        "x509",
        "-req",
        "-in",
        name + ".csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-days",
        "1",
        "-extfile",
        name + ".ext",
        "-out",
        name + ".pem");
  }

  private static void openssl(Path dir, String... args) throws IOException {
    List<String> command = new java.util.ArrayList<>(List.of("openssl"));
    command.addAll(List.of(args));
    Process process =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("openssl.log").toFile())
            .start();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        throw new IllegalStateException(
            command + " failed: " + Files.readString(dir.resolve("openssl.log")));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
