package dev.conch.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One etcd member that serves clients over TLS only and requires client certificates, with the PEM
 * files a client needs: a throw-away CA, a server certificate for IP 127.0.0.1 (and no host name),
 * a client certificate, and a second CA and client certificate etcd does not trust. {@code openssl}
 * (Debian package {@code openssl}) makes them: RSA keys in PKCS#8, valid for a day.
 *
 * <p>{@link EtcdCluster} cannot start it: its health probe speaks plain HTTP to the client port.
 * Close it to kill etcd; the files stay in the caller's directory.
 *
 * <pre>{@code
 * @TempDir static Path dir;
 * try (TlsEtcd etcd = TlsEtcd.start(dir)) {
 *   // connect to etcd.endpoint() with etcd.ca(), etcd.clientCertificate(), etcd.clientKey()
 * }
 * }</pre>
 */
public final class TlsEtcd implements AutoCloseable {

  private static final Duration START_TIMEOUT = Duration.ofSeconds(20);

  private final Path dir;
  private final Process process;
  private final String endpoint;

  private TlsEtcd(Path dir, Process process, String endpoint) {
    this.dir = dir;
    this.process = process;
    this.endpoint = endpoint;
  }

  /**
   * Makes the certificates in {@code dir} and starts etcd there, with a server certificate that
   * also allows client auth (see {@link #start(Path, boolean)}); returns once it is healthy.
   */
  public static TlsEtcd start(Path dir) {
    return start(dir, true);
  }

  /**
   * Makes the certificates in {@code dir} and starts etcd there; returns once it is healthy.
   *
   * @param gatewayUsable whether the server certificate also allows client auth: with {@code
   *     --client-cert-auth}, etcd 3.4's JSON gateway presents the server's certificate to etcd's
   *     own gRPC port, and without that usage every gateway request fails
   * @throws IllegalStateException if openssl fails, or etcd is not healthy within 20 s (with the
   *     tail of its log)
   */
  public static TlsEtcd start(Path dir, boolean gatewayUsable) {
    try {
      Certificates.make(dir, gatewayUsable);
    } catch (IOException e) {
      throw new UncheckedIOException("Could not make TLS certificates in " + dir, e);
    }
    Set<Integer> taken = new HashSet<>();
    String client = "https://127.0.0.1:" + Processes.freePort(taken);
    String peer = "http://127.0.0.1:" + Processes.freePort(taken);
    List<String> command =
        List.of(
            Processes.binary("ETCD_BIN", "etcd", "etcd-server").toString(),
            "--name=tls",
            "--data-dir=" + dir.resolve("data"),
            "--listen-client-urls=" + client,
            "--advertise-client-urls=" + client,
            "--listen-peer-urls=" + peer,
            "--initial-advertise-peer-urls=" + peer,
            "--initial-cluster=tls=" + peer,
            "--cert-file=" + dir.resolve("server.crt"),
            "--key-file=" + dir.resolve("server.key"),
            "--trusted-ca-file=" + dir.resolve("ca.crt"),
            "--client-cert-auth");
    ProcessBuilder builder =
        Processes.withoutEnv(new ProcessBuilder(command), "ETCD")
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("etcd.log").toFile()));
    TlsEtcd etcd;
    try {
      etcd = new TlsEtcd(dir, Processes.start(builder), client);
    } catch (IOException e) {
      throw new UncheckedIOException("Could not start " + command.get(0), e);
    }
    try {
      etcd.awaitHealthy();
    } catch (RuntimeException e) {
      etcd.close();
      throw e;
    }
    return etcd;
  }

  /** The client URL, {@code https://127.0.0.1:<port>}. */
  public String endpoint() {
    return endpoint;
  }

  /** The CA certificate that signed etcd's certificate and the client's. */
  public Path ca() {
    return dir.resolve("ca.crt");
  }

  /** A client certificate etcd accepts. */
  public Path clientCertificate() {
    return dir.resolve("client.crt");
  }

  /** The key of {@link #clientCertificate()}. */
  public Path clientKey() {
    return dir.resolve("client.key");
  }

  /** A CA that signed neither etcd's certificate nor the client's. */
  public Path otherCa() {
    return dir.resolve("other-ca.crt");
  }

  /** A client certificate that etcd's CA did not sign (self-signed), so etcd refuses it. */
  public Path otherClientCertificate() {
    return dir.resolve("other-client.crt");
  }

  /** The key of {@link #otherClientCertificate()}. */
  public Path otherClientKey() {
    return dir.resolve("other-client.key");
  }

  /**
   * Makes another client certificate etcd accepts, {@code <name>.crt} with its key {@code
   * <name>.key} in the directory etcd was started in, for tests that rotate a client's certificate.
   *
   * @return the certificate; its key is beside it
   */
  public Path newClientCertificate(String name) {
    try {
      Certificates.sign(dir, name, "extendedKeyUsage=clientAuth\n");
    } catch (IOException e) {
      throw new UncheckedIOException("Could not make client certificate " + name + " in " + dir, e);
    }
    return dir.resolve(name + ".crt");
  }

  /** Kills etcd and returns once it is reaped. */
  @Override
  public void close() {
    Processes.kill(process);
  }

  private void awaitHealthy() {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (!probeHealthy()) {
      if (Processes.remainingMillis(deadline) <= 0 || !Processes.pause(200)) {
        throw failure("was not healthy within " + START_TIMEOUT);
      }
    }
  }

  private boolean probeHealthy() {
    if (!process.isAlive()) {
      throw failure("exited with code " + process.exitValue());
    }
    return Etcdctl.run(
            endpoint,
            Duration.ofSeconds(5),
            "--cacert=" + ca(),
            "--cert=" + clientCertificate(),
            "--key=" + clientKey(),
            "--dial-timeout=1s",
            "--command-timeout=2s",
            "endpoint",
            "health")
        .succeeded();
  }

  private IllegalStateException failure(String what) {
    return new IllegalStateException(
        "TLS etcd at "
            + endpoint
            + " "
            + what
            + "; last lines of "
            + dir.resolve("etcd.log")
            + ":\n"
            + Processes.tail(dir.resolve("etcd.log"), 30));
  }

  /** The openssl calls that make the PEM files. */
  private static final class Certificates {

    private Certificates() {}

    static void make(Path dir, boolean gatewayUsable) throws IOException {
      openssl(
          dir,
          "req",
          "-x509",
          "-newkey",
          "rsa:2048",
          "-nodes",
          "-keyout",
          "ca.key",
          "-out",
          "ca.crt",
          "-days",
          "1",
          "-subj",
          "/CN=conch-test-ca",
          "-addext",
          "basicConstraints=critical,CA:TRUE",
          "-addext",
          "keyUsage=critical,keyCertSign,cRLSign");
      // IP only: a client that dials "localhost" must see a certificate that does not name it.
      sign(
          dir,
          "server",
          "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth"
              + (gatewayUsable ? ",clientAuth" : "")
              + "\n");
      sign(dir, "client", "extendedKeyUsage=clientAuth\n");
      openssl(
          dir,
          "req",
          "-x509",
          "-newkey",
          "rsa:2048",
          "-nodes",
          "-keyout",
          "other-client.key",
          "-out",
          "other-client.crt",
          "-days",
          "1",
          "-subj",
          "/CN=conch-test-other");
      Files.copy(dir.resolve("other-client.crt"), dir.resolve("other-ca.crt"));
    }

    static void sign(Path dir, String name, String extensions) throws IOException {
      Files.writeString(dir.resolve(name + ".ext"), extensions);
      openssl(
          dir,
          "req",
          "-newkey",
          "rsa:2048",
          "-nodes",
          "-keyout",
          name + ".key",
          "-out",
          name + ".csr",
          "-subj",
          "/CN=conch-" + name);
      openssl(
          dir,
          "x509",
          "-req",
          "-in",
          name + ".csr",
          "-CA",
          "ca.crt",
          "-CAkey",
          "ca.key",
          "-CAcreateserial",
          "-days",
          "1",
          "-extfile",
          name + ".ext",
          "-out",
          name + ".crt");
    }

    private static void openssl(Path dir, String... args) throws IOException {
      List<String> command = new ArrayList<>(List.of("openssl"));
      command.addAll(List.of(args));
      Path log = dir.resolve("openssl.log");
      Process process =
          Processes.start(
              new ProcessBuilder(command)
                  .directory(dir.toFile())
                  .redirectErrorStream(true)
                  .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())));
      if (!Processes.awaitExit(process, Duration.ofSeconds(30))) {
        Processes.kill(process);
        throw new IllegalStateException("openssl did not finish within 30 s: " + command);
      }
      if (process.exitValue() != 0) {
        throw new IllegalStateException(
            "openssl failed: " + command + "\n" + Processes.tail(log, 30));
      }
    }
  }
}
