package dev.conch.etcd;

import io.etcd.jetcd.Client;
import io.grpc.ManagedChannel;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
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
 *
 * <p>The way to the channel is found by type, not by field name: the client's field whose type
 * declares a no-argument method returning a {@link ManagedChannel} (jetcd 0.8's {@code
 * ClientImpl.connectionManager}, a {@code ClientConnectionManager} with {@code getChannel()}). A
 * client without one (another jetcd, a wrapper that is no {@link ForwardingClient}) is left alone,
 * said once at debug level: a warning at every start would say nothing the user can act on.
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
    Optional<Client> target = connecting(client);
    if (target.isEmpty()) {
      return; // nothing connects yet: nothing to reset
    }
    try {
      Optional<ManagedChannel> channel = channelOf(target.get());
      if (channel.isPresent()) {
        channel.get().resetConnectBackoff();
        return;
      }
      unsupported = true;
      log.debug(
          "not resetting gRPC's reconnect back-off: {} has no channel conch can reach",
          target.get().getClass().getName());
    } catch (ReflectiveOperationException | RuntimeException e) {
      unsupported = true;
      log.debug("not resetting gRPC's reconnect back-off: {}", e.toString());
    }
  }

  /** The client that connects, looking through forwarding clients; empty before it exists. */
  static Optional<Client> connecting(Client client) {
    Client target = client;
    while (target instanceof ForwardingClient forwarding) {
      Optional<Client> delegate = forwarding.delegate();
      if (delegate.isEmpty()) {
        return Optional.empty();
      }
      target = delegate.get();
    }
    return Optional.of(target);
  }

  /** The gRPC channel inside a jetcd client, found by the types on the way; empty if none. */
  static Optional<ManagedChannel> channelOf(Client client) throws ReflectiveOperationException {
    for (Field field : client.getClass().getDeclaredFields()) {
      if (Modifier.isStatic(field.getModifiers())) {
        continue;
      }
      Method getter = channelGetter(field.getType());
      if (getter == null) {
        continue;
      }
      field.setAccessible(true);
      Object holder = field.get(client);
      if (holder == null) {
        continue;
      }
      getter.setAccessible(true);
      if (getter.invoke(holder) instanceof ManagedChannel managed) {
        return Optional.of(managed);
      }
    }
    return Optional.empty();
  }

  private static @Nullable Method channelGetter(Class<?> type) {
    if (type.isPrimitive() || type.isArray() || type.getName().startsWith("java.")) {
      return null;
    }
    for (Method method : type.getDeclaredMethods()) {
      if (method.getParameterCount() == 0
          && !Modifier.isStatic(method.getModifiers())
          && ManagedChannel.class.isAssignableFrom(method.getReturnType())) {
        return method;
      }
    }
    return null;
  }
}
