package dev.conch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.test.TlsEtcd;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code --cacert}, {@code --cert}, {@code --key} against an etcd that demands client certs, on
 * both ways conch talks to etcd: the read forms over etcd's JSON gateway, run mode over gRPC. A TLS
 * mistake exits 69 like an outage, but names its cause.
 */
class TlsIT {

  @TempDir static Path dir;
  private static TlsEtcd etcd;

  @BeforeAll
  static void startEtcd() {
    etcd = TlsEtcd.start(dir);
  }

  @AfterAll
  static void stopEtcd() {
    etcd.close();
  }

  @Test
  void connectsWithTheCaAndAClientCertificate() {
    Conch conch = Conch.at(etcd.endpoint());
    String[] tls = tls(etcd.ca(), etcd.clientCertificate(), etcd.clientKey());

    Conch.Result run = conch.run(concat(new String[] {"elect", "tls"}, tls, "--", "echo", "ran"));
    Conch.Result who = conch.run(concat(new String[] {"elect", "tls", "--who"}, tls));

    assertThat(run.status()).as(run.stderr()).isZero();
    assertThat(run.stdout()).isEqualTo("ran\n");
    assertThat(who.status()).as(who.stderr()).isEqualTo(1);
  }

  @Test
  void whoShowsALeaderOverTls() {
    Conch conch = Conch.at(etcd.endpoint());
    String[] tls = tls(etcd.ca(), etcd.clientCertificate(), etcd.clientKey());
    try (Conch.Running leader =
        conch.start(concat(new String[] {"elect", "tlsw"}, tls, "--", "sleep", "60"))) {
      leader.awaitErrorLine(l -> l.contains("command started"), Conch.RUN_TIMEOUT);

      Conch.Result who = conch.run(concat(new String[] {"elect", "tlsw", "--who"}, tls));

      assertThat(who.status()).as(who.stderr()).isZero();
      assertThat(who.stdout()).startsWith("tlsw ").contains(" rev=");
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"--who", "--"})
  void withoutAClientCertificateTheCauseIsNamed(String form) {
    Conch.Result result = run(form, etcd.endpoint(), "--cacert", etcd.ca().toString());

    assertUnavailable(result, etcd.endpoint(), "refused the client certificate or requires one");
    assertThat(result.stderr()).contains("give --cert and --key");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"--who", "--"})
  void aClientCertificateFromAnotherCaIsNamed(String form) {
    Conch.Result result =
        run(
            form,
            etcd.endpoint(),
            tls(etcd.ca(), etcd.otherClientCertificate(), etcd.otherClientKey()));

    assertUnavailable(result, etcd.endpoint(), "refused the client certificate or requires one");
    assertThat(result.stderr()).contains("check --cert and --key");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"--who", "--"})
  void aCaThatDidNotSignTheServerIsNamed(String form) {
    Conch.Result result =
        run(form, etcd.endpoint(), tls(etcd.otherCa(), etcd.clientCertificate(), etcd.clientKey()));

    assertUnavailable(result, etcd.endpoint(), "certificate is not signed by a trusted CA");
    assertThat(result.stderr()).contains("--cacert");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"--who", "--"})
  void aHostNameTheCertificateDoesNotNameIsNamed(String form) {
    // The certificate names IP 127.0.0.1 only; "localhost" resolves there but is not named.
    String byName = etcd.endpoint().replace("127.0.0.1", "localhost");

    Conch.Result result =
        run(form, byName, tls(etcd.ca(), etcd.clientCertificate(), etcd.clientKey()));

    assertUnavailable(result, byName, "certificate does not name the host dialled");
  }

  @Test
  void readsGoOverGrpcWhereEtcdsGatewayCannotServe(@TempDir Path other) {
    try (TlsEtcd plainServerCert = TlsEtcd.start(other, false)) {
      Conch conch = Conch.at(plainServerCert.endpoint());
      String[] tls =
          tls(
              plainServerCert.ca(),
              plainServerCert.clientCertificate(),
              plainServerCert.clientKey());
      try (Conch.Running leader =
          conch.start(concat(new String[] {"elect", "fb"}, tls, "--", "sleep", "60"))) {
        leader.awaitErrorLine(l -> l.contains("command started"), Conch.RUN_TIMEOUT);

        Conch.Result who = conch.run(concat(new String[] {"elect", "fb", "--who"}, tls));
        Conch.Result held = conch.run(concat(new String[] {"elect", "fb", "--assert"}, tls));
        try (Conch.Running watch =
            conch.start(concat(new String[] {"elect", "fb", "--watch"}, tls))) {
          watch.awaitLine(l -> l.startsWith("fb "), Conch.RUN_TIMEOUT);
        }

        assertThat(who.status()).as(who.stderr()).isZero();
        assertThat(who.stdout()).startsWith("fb ").contains(" rev=");
        assertThat(held.status()).as(held.stderr()).isZero();
      }
    }
  }

  private static Conch.Result run(String form, String endpoint, String... flags) {
    String[] head = {"elect", "x", "--endpoints", endpoint};
    return form.equals("--")
        ? Conch.at(null).run(concat(head, flags, "--", "true"))
        : Conch.at(null).run(concat(head, flags, form));
  }

  static void assertUnavailable(Conch.Result result, String endpoint, String cause) {
    assertThat(result.status()).as(result.stderr()).isEqualTo(69);
    assertThat(result.stdout()).isEmpty();
    assertThat(result.stderr()).contains("etcd unavailable at " + endpoint).contains(cause);
  }

  private static String[] tls(Path ca, Path cert, Path key) {
    assertThat(Files.isReadable(key)).isTrue();
    return new String[] {
      "--cacert", ca.toString(), "--cert", cert.toString(), "--key", key.toString()
    };
  }

  private static String[] concat(String[] head, String[] middle, String... tail) {
    return Stream.of(head, middle, tail).flatMap(Arrays::stream).toArray(String[]::new);
  }
}
