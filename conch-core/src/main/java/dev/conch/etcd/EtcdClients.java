package dev.conch.etcd;

import dev.conch.InvalidArgumentException;
import dev.conch.Setting;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.grpc.ClientInterceptor;
import io.netty.handler.ssl.SslContext;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** Builds jetcd clients the way conch needs them: checked endpoints, bounded connects. */
public final class EtcdClients {

  private EtcdClients() {}

  /**
   * Parses a comma-separated endpoint list.
   *
   * @throws InvalidArgumentException naming the bad endpoint and what is accepted
   */
  public static List<URI> parseEndpoints(String endpoints) {
    if (endpoints == null || endpoints.isBlank()) {
      throw Setting.ENDPOINTS.invalid(endpoints, Setting.ENDPOINTS.accepted());
    }
    List<URI> uris = new ArrayList<>();
    for (String part : endpoints.split(",")) {
      uris.add(parseEndpoint(part.trim()));
    }
    return uris;
  }

  /**
   * Parses one endpoint URL.
   *
   * @throws InvalidArgumentException naming the bad endpoint and what is accepted
   */
  public static URI parseEndpoint(String endpoint) {
    try {
      URI uri = new URI(endpoint);
      boolean scheme = "http".equals(uri.getScheme()) || "https".equals(uri.getScheme());
      if (!scheme || uri.getHost() == null || uri.getPort() < 1) {
        throw Setting.ENDPOINT.invalid(endpoint, Setting.ENDPOINT.accepted());
      }
      return uri;
    } catch (URISyntaxException e) {
      throw Setting.ENDPOINT.invalid(endpoint, Setting.ENDPOINT.accepted());
    }
  }

  /**
   * A client builder for {@code endpoints} with conch's defaults, so that no call outlives its
   * timeout and conch, not jetcd, owns every retry:
   *
   * <ul>
   *   <li>connects bounded by {@code callTimeout}, and every call but a watch carries a gRPC
   *       deadline of {@code callTimeout} ({@link CallDeadlines});
   *   <li>no wait-for-ready: while no connection can be made a call fails at once with the reason
   *       of the last failed connect (TLS, refused, unknown host) instead of waiting for the
   *       connection and being sent when it returns;
   *   <li>no retries inside jetcd (it would retry a call conch already gave up on);
   *   <li>no keep-alive pings without calls (they draw GOAWAY from etcd, jetcd#1075);
   *   <li>its calls started, and their answers delivered, on the few threads that every such client
   *       shares ({@link CallThreads}), not on pools that grow with bursts of calls.
   * </ul>
   */
  public static ClientBuilder builder(List<URI> endpoints, Duration callTimeout) {
    return Client.builder()
        .endpoints(endpoints)
        .executorService(CallThreads.executor())
        .connectTimeout(callTimeout)
        .waitForReady(false)
        .retryMaxAttempts(0)
        .interceptor(new CallDeadlines(callTimeout), CallThreads.INSTANCE)
        .keepaliveWithoutCalls(false);
  }

  /**
   * Sets back on {@code builder} what {@link #builder} set so that no call outlives its timeout,
   * wherever something changed it since (a customizer): wait-for-ready off, no retries inside
   * jetcd, the call deadline of {@code callTimeout} among the interceptors, no keep-alive pings
   * without calls. Returns what was set back, in words (empty when nothing was changed), for a
   * warning that names who changed it.
   */
  public static List<String> restoreConchSettings(ClientBuilder builder, Duration callTimeout) {
    List<String> restored = new ArrayList<>();
    if (builder.waitForReady()) {
      restored.add("waitForReady(true): calls while etcd is away would be queued and sent late");
      builder.waitForReady(false);
    }
    if (builder.retryMaxAttempts() != 0) {
      restored.add(
          "retryMaxAttempts("
              + builder.retryMaxAttempts()
              + "): jetcd would retry calls conch already gave up on");
      builder.retryMaxAttempts(0);
    }
    List<ClientInterceptor> interceptors =
        builder.interceptors() == null ? List.of() : builder.interceptors();
    if (interceptors.stream().noneMatch(CallDeadlines.class::isInstance)) {
      restored.add("interceptors without conch's call deadline: an RPC could outlive its timeout");
      List<ClientInterceptor> all = new ArrayList<>(interceptors);
      all.add(new CallDeadlines(callTimeout));
      if (interceptors.stream().noneMatch(CallThreads.class::isInstance)) {
        all.add(CallThreads.INSTANCE);
      }
      builder.interceptors(all);
    }
    if (Boolean.TRUE.equals(builder.keepaliveWithoutCalls())) {
      restored.add("keepaliveWithoutCalls(true): etcd answers such pings with GOAWAY (jetcd#1075)");
      builder.keepaliveWithoutCalls(false);
    }
    return restored;
  }

  /** Adds credentials to {@code builder} when {@code user} is set. */
  public static ClientBuilder withCredentials(
      ClientBuilder builder, @Nullable String user, @Nullable String password) {
    if (user == null || user.isEmpty()) {
      return builder;
    }
    return builder
        .user(ByteSequence.from(user, StandardCharsets.UTF_8))
        .password(ByteSequence.from(password == null ? "" : password, StandardCharsets.UTF_8));
  }

  /** Adds TLS to {@code builder} when {@code ssl} is set. */
  public static ClientBuilder withTls(ClientBuilder builder, @Nullable SslContext ssl) {
    return ssl == null ? builder : builder.sslContext(ssl);
  }
}
