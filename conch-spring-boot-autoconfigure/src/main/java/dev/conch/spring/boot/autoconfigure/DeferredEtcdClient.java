package dev.conch.spring.boot.autoconfigure;

import dev.conch.etcd.ForwardingClient;
import io.etcd.jetcd.Auth;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.etcd.jetcd.Cluster;
import io.etcd.jetcd.Election;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.Lock;
import io.etcd.jetcd.Maintenance;
import io.etcd.jetcd.Watch;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * The etcd {@link Client} conch configures, built from its checked and customized builder on first
 * use instead of during start-up: the first call is the session's lease grant, on an election's
 * thread once the context has started, or a health or endpoint read. Building jetcd's client loads
 * much of gRPC, Netty and Vert.x, which would otherwise delay the application's start.
 *
 * <p>Everything that can be refused (endpoints, TLS, credentials, the customizers) is decided when
 * the builder is made, so a bad setting still fails start-up; what is left, {@link
 * ClientBuilder#build()}, only wires the client. Closing it before its first use builds nothing;
 * using it after {@link #close()} is refused.
 *
 * <p>It is a {@link ForwardingClient}, so that conch-core reaches the jetcd client inside to cut
 * gRPC's reconnect back-off short after an outage, as it does for a client of its own, and names
 * the endpoints and the setting they came from when etcd cannot be reached.
 */
final class DeferredEtcdClient implements ForwardingClient {

  private final @Nullable String endpoints;

  private final Object monitor = new Object();

  // Guarded by monitor.
  private ClientBuilder builder;

  // Guarded by monitor.
  private @Nullable Client client;

  // Guarded by monitor.
  private boolean closed;

  DeferredEtcdClient(ClientBuilder builder) {
    this(builder, null);
  }

  /**
   * @param endpoints where the client connects and the setting that says so, for messages about an
   *     etcd that cannot be reached, e.g. {@code http://127.0.0.1:2379 (conch.etcd.endpoints)}
   */
  DeferredEtcdClient(ClientBuilder builder, @Nullable String endpoints) {
    this.builder = builder;
    this.endpoints = endpoints;
  }

  @Override
  public Optional<String> endpoints() {
    return Optional.ofNullable(this.endpoints);
  }

  /** Whether the jetcd client has been built (for tests and diagnostics). */
  boolean isBuilt() {
    synchronized (this.monitor) {
      return this.client != null;
    }
  }

  /** The jetcd client once built; never builds it. */
  @Override
  public Optional<Client> delegate() {
    synchronized (this.monitor) {
      return Optional.ofNullable(this.client);
    }
  }

  private Client client() {
    synchronized (this.monitor) {
      if (this.closed) {
        throw new IllegalStateException("The etcd client is closed (its context was closed)");
      }
      if (this.client == null) {
        this.client = this.builder.build();
      }
      return this.client;
    }
  }

  @Override
  public Auth getAuthClient() {
    return client().getAuthClient();
  }

  @Override
  public KV getKVClient() {
    return client().getKVClient();
  }

  @Override
  public Cluster getClusterClient() {
    return client().getClusterClient();
  }

  @Override
  public Maintenance getMaintenanceClient() {
    return client().getMaintenanceClient();
  }

  @Override
  public Lease getLeaseClient() {
    return client().getLeaseClient();
  }

  @Override
  public Watch getWatchClient() {
    return client().getWatchClient();
  }

  @Override
  public Lock getLockClient() {
    return client().getLockClient();
  }

  @Override
  public Election getElectionClient() {
    return client().getElectionClient();
  }

  /**
   * Makes the client from {@code change} applied to a copy of the builder from now on: if the
   * client was built, builds the new one, swaps it in and closes the old one, whose calls under way
   * fail and are retried by conch on the new one; else the next use builds it. After {@link
   * #close()} it does nothing.
   *
   * @throws RuntimeException what {@code change} or building refused; the client in use stays
   */
  void rebuild(UnaryOperator<ClientBuilder> change) {
    Client old;
    synchronized (this.monitor) {
      if (this.closed) {
        return;
      }
      ClientBuilder changed = change.apply(this.builder.copy());
      old = this.client;
      if (old != null) {
        this.client = changed.build();
      }
      this.builder = changed;
    }
    if (old != null) {
      old.close();
    }
  }

  @Override
  public void close() {
    Client built;
    synchronized (this.monitor) {
      this.closed = true;
      built = this.client;
    }
    if (built != null) {
      built.close();
    }
  }

  @Override
  public String toString() {
    synchronized (this.monitor) {
      return "DeferredEtcdClient["
          + this.builder.target()
          + ((this.client != null) ? "]" : ", not built yet]");
    }
  }
}
