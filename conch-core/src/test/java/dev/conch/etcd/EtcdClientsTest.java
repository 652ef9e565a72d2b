package dev.conch.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.ClientBuilder;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What conch's client builder sets, and how it is set back after someone changed it. */
class EtcdClientsTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(2);

  private static ClientBuilder conchs() {
    return EtcdClients.builder(List.of(URI.create("http://127.0.0.1:2379")), TIMEOUT);
  }

  @Test
  void conchsOwnBuilderNeedsNothingSetBack() {
    ClientBuilder builder = conchs();

    assertThat(EtcdClients.restoreConchSettings(builder, TIMEOUT)).isEmpty();
    assertThat(builder.waitForReady()).isFalse();
    assertThat(builder.retryMaxAttempts()).isZero();
    assertThat(builder.interceptors()).hasAtLeastOneElementOfType(CallDeadlines.class);
    assertThat(builder.interceptors()).contains(CallThreads.INSTANCE);
    assertThat(builder.executorService()).isSameAs(CallThreads.executor());
  }

  @Test
  void whatACustomizerTurnedBackOnIsSetBackAndNamed() {
    ClientBuilder builder =
        conchs()
            .waitForReady(true)
            .retryMaxAttempts(3)
            .interceptors(List.of())
            .keepaliveWithoutCalls(true)
            .authority("etcd.example");

    List<String> restored = EtcdClients.restoreConchSettings(builder, TIMEOUT);

    assertThat(restored)
        .hasSize(4)
        .anySatisfy(line -> assertThat(line).startsWith("waitForReady(true)"))
        .anySatisfy(line -> assertThat(line).startsWith("retryMaxAttempts(3)"))
        .anySatisfy(line -> assertThat(line).contains("call deadline"))
        .anySatisfy(line -> assertThat(line).startsWith("keepaliveWithoutCalls(true)"));
    assertThat(builder.waitForReady()).isFalse();
    assertThat(builder.retryMaxAttempts()).isZero();
    assertThat(builder.interceptors()).hasAtLeastOneElementOfType(CallDeadlines.class);
    assertThat(builder.interceptors()).contains(CallThreads.INSTANCE); // answers on conch's threads
    assertThat(builder.keepaliveWithoutCalls()).isFalse();
    assertThat(builder.authority()).isEqualTo("etcd.example"); // the rest stays
    assertThat(EtcdClients.restoreConchSettings(builder, TIMEOUT)).isEmpty();
  }
}
