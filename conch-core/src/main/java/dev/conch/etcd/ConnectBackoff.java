package dev.conch.etcd;

import io.etcd.jetcd.Client;
import io.grpc.ManagedChannel;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cuts gRPC's reconnect back-off short while etcd is away. After a connection fails, gRPC waits 1
 * s, then 1.6 times longer after each failure, up to 2 minutes, before it connects again; calls in
 * between wait or fail. An etcd back after a long outage would then be seen only minutes later, and
 * the election would stay without a leader meanwhile. jetcd offers no setting for it, so conch asks
 * jetcd's channel for {@link ManagedChannel#resetConnectBackoff()} (through reflection, the one
 * place that reaches into jetcd) each time a call to etcd fails: gRPC then connects at once. A
 * {@link ForwardingClient} (the Spring module's client, built on first use) is looked through to
 * the jetcd client behind it.
 */
final class ConnectBackoff {

  private static final Logger log = LoggerFactory.getLogger(ConnectBackoff.class);

  private final Client client;
  private boolean unsupported;

  ConnectBackoff(Client client) {
    this.client = client;
  }

  /** Asks gRPC to connect again now; does nothing when jetcd's insides are not as expected. */
  void reset() {
    if (unsupported) {
      return;
    }
    Client target = client;
    while (target instanceof ForwardingClient forwarding) {
      Optional<Client> delegate = forwarding.delegate();
      if (delegate.isEmpty()) {
        return; // nothing connects yet: nothing to reset
      }
      target = delegate.get();
    }
    try {
      Field manager = target.getClass().getDeclaredField("connectionManager");
      manager.setAccessible(true);
      Object connections = manager.get(target);
      Method channel = connections.getClass().getDeclaredMethod("getChannel");
      channel.setAccessible(true);
      Object value = channel.invoke(connections);
      if (value instanceof ManagedChannel managed) {
        managed.resetConnectBackoff();
      }
    } catch (ReflectiveOperationException | RuntimeException e) {
      unsupported = true;
      // Said once: without the reset an etcd back after a long outage is seen up to two minutes
      // late (gRPC's own back-off), which users must know to read their fail-over times.
      log.warn(
          "cannot reset gRPC's reconnect back-off of the etcd client ({}): after a long etcd"
              + " outage reconnecting may take up to two minutes",
          e.toString());
    }
  }
}
