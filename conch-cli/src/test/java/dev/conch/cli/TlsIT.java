package dev.conch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --cacert}, {@code --cert}, {@code --key} against an etcd that demands client certs. */
class TlsIT {

  @TempDir static Path dir;
  private static TlsEtcd etcd;

  @BeforeAll
  static void startEtcd() throws IOException {
    etcd = new TlsEtcd(dir);
  }

  @AfterAll
  static void stopEtcd() {
    etcd.close();
  }

  @Test
  void connectsWithTheCaAndAClientCertificate() {
    Conch conch = Conch.at(etcd.endpoint);
    String[] tls = {
      "--cacert", etcd.ca.toString(), "--cert", etcd.cert.toString(), "--key", etcd.key.toString()
    };

    Conch.Result run = conch.run(concat(new String[] {"elect", "tls"}, tls, "--", "echo", "ran"));
    Conch.Result who = conch.run(concat(new String[] {"elect", "tls", "--who"}, tls));

    assertThat(run.status()).as(run.stderr()).isZero();
    assertThat(run.stdout()).isEqualTo("ran\n");
    assertThat(who.status()).as(who.stderr()).isEqualTo(1);
  }

  @Test
  void withoutAClientCertificateEtcdIsUnavailable() {
    Conch.Result who =
        Conch.at(etcd.endpoint).run("elect", "tls", "--who", "--cacert", etcd.ca.toString());

    assertThat(who.status()).isEqualTo(69);
    assertThat(who.stderr()).contains("etcd unavailable at " + etcd.endpoint);
  }

  private static String[] concat(String[] head, String[] middle, String... tail) {
    return java.util.stream.Stream.of(head, middle, tail)
        .flatMap(java.util.Arrays::stream)
        .toArray(String[]::new);
  }
}
