package dev.conch.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.State;
import dev.conch.etcd.EtcdClients;
import io.etcd.jetcd.Client;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What conch leaves off the thread that starts the application: the jetcd client is built on first
 * use (the campaign's first call, after the context started), and Boot's background
 * pre-initialization thread loads the classes its beans need while the context is being prepared.
 * etcd is configured at a port where nothing listens: none of this needs it.
 */
class StartupPathTest {

  private static final String NOWHERE = "http://127.0.0.1:1";

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(ConchAutoConfiguration.class))
          .withPropertyValues(
              "spring.application.name=app",
              "conch.etcd.endpoints=" + NOWHERE,
              "conch.etcd.timeout=500ms");

  @Test
  void everySingletonIsCreatedWithoutBuildingTheEtcdClientAndCampaigningBuildsIt() {
    this.contextRunner
        .withUserConfiguration(ClientStateAfterSingletons.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              // The Election beans, the session and the client bean all exist by then.
              assertThat(context.getBean(ClientStateAfterSingletons.class).builtThen)
                  .hasValue(false);
              DeferredEtcdClient client = (DeferredEtcdClient) context.getBean(Client.class);
              Election election = context.getBean(Election.class);
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(() -> client.isBuilt() && election.state() == State.CAMPAIGNING);
            });
  }

  @Test
  void theFirstUseBuildsTheClientOnceForEveryCaller() {
    DeferredEtcdClient client = deferred();
    try {
      assertThat(client.isBuilt()).isFalse();
      assertThat(client.getKVClient()).isSameAs(client.getKVClient());
      assertThat(client.isBuilt()).isTrue();
      assertThat(client.toString()).contains("127.0.0.1:1").doesNotContain("not built");
    } finally {
      client.close();
    }
  }

  @Test
  void aClientClosedBeforeItsFirstUseBuildsNothingAndRefusesLaterUse() {
    DeferredEtcdClient client = deferred();
    client.close();
    assertThat(client.isBuilt()).isFalse();
    assertThatIllegalStateException()
        .isThrownBy(client::getLeaseClient)
        .withMessageContaining("closed");
  }

  @Test
  void aCustomizerThatFailsStillFailsStartup() {
    this.contextRunner
        .withBean(
            EtcdClientBuilderCustomizer.class,
            () ->
                builder -> {
                  throw new IllegalArgumentException("refused by the customizer");
                })
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessage("refused by the customizer"));
  }

  @Test
  void theClientNamesItsEndpointsAndThePropertyThatSetThem() {
    this.contextRunner.run(
        context ->
            assertThat(((DeferredEtcdClient) context.getBean(Client.class)).endpoints())
                .hasValue(NOWHERE + " (conch.etcd.endpoints)"));
  }

  private static DeferredEtcdClient deferred() {
    return new DeferredEtcdClient(
        EtcdClients.builder(List.of(URI.create(NOWHERE)), Duration.ofMillis(500)));
  }

  /** Records whether the client was built once every singleton existed, before the start. */
  @Configuration(proxyBeanMethods = false)
  static class ClientStateAfterSingletons implements SmartInitializingSingleton {

    final AtomicReference<Boolean> builtThen = new AtomicReference<>();

    private final ObjectProvider<Client> client;

    ClientStateAfterSingletons(ObjectProvider<Client> client) {
      this.client = client;
    }

    @Bean
    String marker() {
      return "marker";
    }

    @Override
    public void afterSingletonsInstantiated() {
      this.builtThen.set(((DeferredEtcdClient) this.client.getObject()).isBuilt());
    }
  }
}
