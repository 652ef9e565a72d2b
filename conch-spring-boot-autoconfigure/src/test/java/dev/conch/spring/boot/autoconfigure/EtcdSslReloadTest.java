package dev.conch.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.spring.LeadershipLostEvent;
import dev.conch.test.TlsEtcd;
import io.etcd.jetcd.Client;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.event.EventListener;

/**
 * An SSL bundle that reloads its files ({@code reload-on-update}) rebuilds conch's etcd client,
 * against an etcd that serves TLS only and requires client certificates: the certificate files are
 * rotated while the instance leads.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class EtcdSslReloadTest {

  private static final Duration WAIT = Duration.ofSeconds(20);

  private static final Duration TTL = Duration.ofSeconds(5);

  @TempDir static Path dir;

  @TempDir Path live;

  private static TlsEtcd etcd;

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

  private ApplicationContextRunner contextRunner() throws IOException {
    install(etcd.clientCertificate(), etcd.clientKey());
    return new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(SslAutoConfiguration.class, ConchAutoConfiguration.class))
        .withBean(Losses.class)
        .withPropertyValues(
            "conch.etcd.endpoints=" + etcd.endpoint(),
            "conch.etcd.timeout=2s",
            "conch.ttl=" + TTL.toSeconds() + "s",
            "conch.office=" + ConchTestSupport.freshOffice("tls-reload"),
            "conch.etcd.ssl.bundle=etcd",
            "spring.ssl.bundle.pem.etcd.reload-on-update=true",
            "spring.ssl.bundle.watch.file.quiet-period=200ms",
            "spring.ssl.bundle.pem.etcd.truststore.certificate=file:" + etcd.ca(),
            "spring.ssl.bundle.pem.etcd.keystore.certificate=file:"
                + this.live.resolve("client.crt"),
            "spring.ssl.bundle.pem.etcd.keystore.private-key=file:"
                + this.live.resolve("client.key"));
  }

  @Test
  void rotatedCertificateFilesReconnectTheClientAndTheOfficeStaysHeld() throws IOException {
    Path next = etcd.newClientCertificate("rotated");
    contextRunner()
        .run(
            context -> {
              Election election = context.getBean(Election.class);
              assertThat(election.awaitLeadership(WAIT)).isTrue();
              long token = election.token().orElseThrow();
              DeferredEtcdClient client = (DeferredEtcdClient) context.getBean(Client.class);
              Client before = client.delegate().orElseThrow();

              install(next, next.resolveSibling("rotated.key"));

              await("the client rebuilt")
                  .atMost(WAIT)
                  .until(() -> client.delegate().orElseThrow() != before);
              // Renewals for longer than a TTL went out on the new client: the same term goes on.
              await("the same term, leading, for longer than a TTL")
                  .during(TTL.plusSeconds(1))
                  .atMost(TTL.multipliedBy(3))
                  .until(() -> election.isLeader() && election.token().orElse(0) == token);
              assertThat(context.getBean(Losses.class).lost()).isEmpty();
            });
  }

  @Test
  void aRotatedCertificateEtcdRefusesIsWhatTheNewClientUsesAndTheOfficeIsLost() throws IOException {
    contextRunner()
        .run(
            context -> {
              Election election = context.getBean(Election.class);
              assertThat(election.awaitLeadership(WAIT)).isTrue();

              install(etcd.otherClientCertificate(), etcd.otherClientKey());

              // The old connection would have gone on renewing: only the new certificate fails.
              Losses losses = context.getBean(Losses.class);
              await().atMost(WAIT).until(() -> !losses.lost().isEmpty());
              assertThat(election.isLeader()).isFalse();
            });
  }

  /** Replaces the files the bundle reads, each in one move, the key first. */
  private void install(Path certificate, Path key) throws IOException {
    replace(key, this.live.resolve("client.key"));
    replace(certificate, this.live.resolve("client.crt"));
  }

  private static void replace(Path source, Path target) throws IOException {
    Path staged = target.resolveSibling(target.getFileName() + ".new");
    Files.copy(source, staged, StandardCopyOption.REPLACE_EXISTING);
    Files.move(staged, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  static class Losses {

    private final List<LeadershipLostEvent> lost = new CopyOnWriteArrayList<>();

    List<LeadershipLostEvent> lost() {
      return List.copyOf(this.lost);
    }

    @EventListener
    void on(LeadershipLostEvent event) {
      this.lost.add(event);
    }
  }
}
