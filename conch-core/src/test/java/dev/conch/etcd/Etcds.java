package dev.conch.etcd;

import dev.conch.test.EtcdCluster;
import io.etcd.jetcd.Client;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Clients and sessions on a test cluster, all closed together. */
final class Etcds implements AutoCloseable {

  private final List<AutoCloseable> open = new ArrayList<>();

  Client client(String endpoints) {
    Client client =
        EtcdClients.builder(EtcdClients.parseEndpoints(endpoints), Duration.ofSeconds(2)).build();
    open.add(client);
    return client;
  }

  Client client(EtcdCluster cluster) {
    return client(cluster.endpoints());
  }

  EtcdSession session(Client client, SessionOptions options) {
    EtcdSession session = EtcdSession.open(client, options);
    open.add(0, session);
    return session;
  }

  @Override
  public void close() {
    for (AutoCloseable closeable : open) {
      try {
        closeable.close();
      } catch (Exception e) {
        // closing everything matters more than one failure
      }
    }
    open.clear();
  }
}
