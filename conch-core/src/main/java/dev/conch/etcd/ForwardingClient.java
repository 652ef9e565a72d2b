package dev.conch.etcd;

import io.etcd.jetcd.Client;
import java.util.Optional;

/**
 * A jetcd {@link Client} that hands every call to another client: one built on first use, or one
 * wrapped to add behaviour. Where conch must tune jetcd's own connection (cutting gRPC's reconnect
 * back-off short after a failed call), it looks through such a client to the one that connects;
 * without this, a wrapper would leave that connection waiting up to two minutes after an outage.
 */
public interface ForwardingClient extends Client {

  /** The client calls go to, or empty while there is none yet (nothing was asked of etcd). */
  Optional<Client> delegate();

  /**
   * Where this client connects, as the user configured it, for conch's messages about an etcd it
   * cannot reach: the endpoints and the setting that named them, e.g. {@code http://127.0.0.1:2379
   * (conch.etcd.endpoints)}. Empty when the wrapper does not know.
   */
  default Optional<String> endpoints() {
    return Optional.empty();
  }
}
