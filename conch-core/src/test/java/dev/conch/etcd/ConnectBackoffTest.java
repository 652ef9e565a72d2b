package dev.conch.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.Client;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The reset of gRPC's reconnect back-off reaches the channel inside the jetcd version conch is
 * built with (found by type, so a renamed field does not switch it off without a word here), and
 * looks through a client that forwards to it.
 */
class ConnectBackoffTest {

  private static Client client() {
    // Nothing needs to listen there: the channel exists once the client is built.
    return EtcdClients.builder(List.of(URI.create("http://127.0.0.1:1")), Duration.ofSeconds(1))
        .build();
  }

  @Test
  void findsTheChannelOfThisJetcdsClient() throws Exception {
    try (Client client = client()) {
      assertThat(ConnectBackoff.channelOf(client)).isPresent();
    }
  }

  @Test
  void looksThroughAForwardingClientOnceItHasADelegate() throws Exception {
    try (Client client = client()) {
      assertThat(ConnectBackoff.connecting(forwarding(Optional.empty()))).isEmpty();
      Optional<Client> inside = ConnectBackoff.connecting(forwarding(Optional.of(client)));
      assertThat(inside).containsSame(client);
      assertThat(ConnectBackoff.channelOf(inside.get())).isPresent();
    }
  }

  @Test
  void aClientWithoutAReachableChannelIsLeftAlone() throws Exception {
    assertThat(ConnectBackoff.channelOf(forwarding(Optional.empty()))).isEmpty();
  }

  private static ForwardingClient forwarding(Optional<Client> delegate) {
    return (ForwardingClient)
        java.lang.reflect.Proxy.newProxyInstance(
            ForwardingClient.class.getClassLoader(),
            new Class<?>[] {ForwardingClient.class},
            (proxy, method, args) -> {
              if (method.getName().equals("delegate")) {
                return delegate;
              }
              throw new UnsupportedOperationException(method.getName());
            });
  }
}
