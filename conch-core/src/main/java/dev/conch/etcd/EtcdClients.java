package dev.conch.etcd;

import dev.conch.InvalidArgumentException;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.netty.handler.ssl.SslContext;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Builds jetcd clients the way conch needs them: checked endpoints, bounded connects. */
public final class EtcdClients {

  private static final String ACCEPTED =
      "a comma-separated list of http:// or https:// URLs with host and port,"
          + " e.g. http://127.0.0.1:2379";

  private EtcdClients() {}

  /**
   * Parses a comma-separated endpoint list.
   *
   * @throws InvalidArgumentException naming the bad endpoint and what is accepted
   */
  public static List<URI> parseEndpoints(String endpoints) {
    if (endpoints == null || endpoints.isBlank()) {
      throw new InvalidArgumentException("endpoints", endpoints, ACCEPTED);
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
        throw new InvalidArgumentException("endpoint", endpoint, ACCEPTED);
      }
      return uri;
    } catch (URISyntaxException e) {
      throw new InvalidArgumentException("endpoint", endpoint, ACCEPTED);
    }
  }

  /**
   * A client builder for {@code endpoints} with conch's defaults: connects bounded by {@code
   * connectTimeout}, and no keep-alive pings without calls (they draw GOAWAY from etcd,
   * jetcd#1075).
   */
  public static ClientBuilder builder(List<URI> endpoints, Duration connectTimeout) {
    return Client.builder()
        .endpoints(endpoints)
        .connectTimeout(connectTimeout)
        .waitForReady(false)
        .keepaliveWithoutCalls(false);
  }

  /** Adds credentials to {@code builder} when {@code user} is set. */
  public static ClientBuilder withCredentials(ClientBuilder builder, String user, String password) {
    if (user == null || user.isEmpty()) {
      return builder;
    }
    return builder
        .user(ByteSequence.from(user, StandardCharsets.UTF_8))
        .password(ByteSequence.from(password == null ? "" : password, StandardCharsets.UTF_8));
  }

  /** Adds TLS to {@code builder} when {@code ssl} is set. */
  public static ClientBuilder withTls(ClientBuilder builder, SslContext ssl) {
    return ssl == null ? builder : builder.sslContext(ssl);
  }
}
