package dev.conch.spring.boot.autoconfigure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throw-away CA, a server certificate for 127.0.0.1 and a client certificate, made with {@code
 * openssl} (Debian package {@code openssl}) in a directory of the test's: PEM files, EC P-256 keys
 * in PKCS#8, valid for a day.
 *
 * @param ca the CA certificate
 * @param serverCertificate the server certificate, for IP 127.0.0.1 and DNS localhost
 * @param serverKey its key
 * @param clientCertificate the client certificate
 * @param clientKey its key
 */
record TestCertificates(
    Path ca, Path serverCertificate, Path serverKey, Path clientCertificate, Path clientKey) {

  static TestCertificates create(Path dir) throws IOException, InterruptedException {
    Path caKey = dir.resolve("ca.key");
    Path ca = dir.resolve("ca.crt");
    openssl(
        dir,
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        caKey.toString(),
        "-out",
        ca.toString(),
        "-days",
        "1",
        "-subj",
        "/CN=conch-test-ca",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign");
    Path server =
        sign(
            dir,
            "server",
            "subjectAltName=IP:127.0.0.1,DNS:localhost\n" + "extendedKeyUsage=serverAuth\n",
            ca,
            caKey);
    Path client = sign(dir, "client", "extendedKeyUsage=clientAuth\n", ca, caKey);
    return new TestCertificates(
        ca, server, dir.resolve("server.key"), client, dir.resolve("client.key"));
  }

  private static Path sign(Path dir, String name, String extensions, Path ca, Path caKey)
      throws IOException, InterruptedException {
    Path key = dir.resolve(name + ".key");
    Path request = dir.resolve(name + ".csr");
    Path certificate = dir.resolve(name + ".crt");
    Path extFile = dir.resolve(name + ".ext");
    Files.writeString(extFile, extensions);
    openssl(
        dir,
        "req",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        key.toString(),
        "-out",
        request.toString(),
        "-subj",
        "/CN=conch-" + name);
    openssl(
        dir,
        "x509",
        "-req",
        "-in",
        request.toString(),
        "-CA",
        ca.toString(),
        "-CAkey",
        caKey.toString(),
        "-CAcreateserial",
        "-out",
        certificate.toString(),
        "-days",
        "1",
        "-extfile",
        extFile.toString());
    return certificate;
  }

  private static void openssl(Path dir, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("openssl"));
    command.addAll(List.of(args));
    Path log = dir.resolve("openssl.log");
    Process process =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException("openssl did not finish: " + command);
    }
    if (process.exitValue() != 0) {
      throw new IllegalStateException("openssl failed: " + command + "\n" + Files.readString(log));
    }
  }
}
