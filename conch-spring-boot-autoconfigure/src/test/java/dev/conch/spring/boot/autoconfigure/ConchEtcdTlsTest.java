package dev.conch.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.test.TlsEtcd;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code conch.etcd.ssl.bundle} against an etcd that serves TLS only and requires client
 * certificates, with certificates the test makes.
 */
class ConchEtcdTlsTest {

  @TempDir static Path dir;

  private static TlsEtcd etcd;

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(SslAutoConfiguration.class, ConchAutoConfiguration.class))
          .withPropertyValues("conch.etcd.timeout=2s", "conch.office=tls");

  @BeforeAll
  static void startEtcdWithTls() {
    etcd = TlsEtcd.start(dir);
  }

  @AfterAll
  static void stopEtcd() {
    if (etcd != null) {
      etcd.close();
    }
  }

  @Test
  void sslBundleWithCaAndClientCertificateLetsTheInstanceLead() {
    this.contextRunner
        .withPropertyValues(
            "conch.etcd.endpoints=" + etcd.endpoint(),
            "conch.etcd.ssl.bundle=etcd",
            "spring.ssl.bundle.pem.etcd.truststore.certificate=file:" + etcd.ca(),
            "spring.ssl.bundle.pem.etcd.keystore.certificate=file:" + etcd.clientCertificate(),
            "spring.ssl.bundle.pem.etcd.keystore.private-key=file:" + etcd.clientKey())
        .run(
            context -> {
              Election election = context.getBean(Election.class);
              assertThat(election.awaitLeadership(Duration.ofSeconds(20))).isTrue();
              assertThat(election.leader().orElseThrow().rev())
                  .isEqualTo(election.token().orElseThrow());
            });
  }

  @Test
  void sslBundleWithoutTheClientCertificateIsRefusedByEtcdAndTheInstanceNeverLeads() {
    this.contextRunner
        .withPropertyValues(
            "conch.etcd.endpoints=" + etcd.endpoint(),
            "conch.etcd.ssl.bundle=etcd",
            "spring.ssl.bundle.pem.etcd.truststore.certificate=file:" + etcd.ca())
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              Election election = context.getBean(Election.class);
              await()
                  .during(Duration.ofSeconds(3))
                  .atMost(Duration.ofSeconds(5))
                  .until(() -> !election.isLeader());
            });
  }
}
