package dev.conch.cli;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.conch.etcd.LeaderWatcher;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.Proxy;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLSocketFactory;
import org.jspecify.annotations.Nullable;

/**
 * etcd's JSON gateway ({@code /v3/kv/range}, {@code /v3/watch}, {@code /v3/auth/authenticate}; etcd
 * 3.4 and later serve it on the client port) over the JDK's {@link HttpURLConnection}: what the
 * read forms need, without starting gRPC, Netty and Vert.x for one request. Keys and values are
 * base64 in the JSON and 64-bit numbers are strings, as the gateway writes them.
 *
 * <p>{@code java.net.http.HttpClient} was measured too: it costs several times the CPU of this
 * client to start (its selector thread, HTTP/2 machinery, futures), more than the read itself.
 *
 * <p>The requests, auth and the choice of endpoint are here; the JSON they send and read is in
 * {@link GatewayJson}.
 */
final class Gateway implements LeaderWatcher.Source {

  /** An error etcd answered with (its own words), or a watch that etcd ended. */
  static final class EtcdError extends IOException {
    private final int status;

    EtcdError(String message) {
      this(0, message);
    }

    EtcdError(int status, String message) {
      super(message);
      this.status = status;
    }

    /**
     * Whether the gateway itself cannot serve: not there (404: an etcd before 3.4, or started with
     * {@code --enable-grpc-gateway=false}), or unable to reach its own gRPC server (503: with
     * {@code --client-cert-auth}, etcd 3.4's gateway presents the server's certificate to itself
     * and fails unless that certificate also allows client auth). gRPC may still work.
     */
    boolean gatewayUnusable() {
      return status == HttpURLConnection.HTTP_NOT_FOUND
          || status == HttpURLConnection.HTTP_UNAVAILABLE;
    }
  }

  private final List<URI> endpoints;
  private final @Nullable SSLSocketFactory tls;
  private final @Nullable String user;
  private final String password;
  private int current;
  private @Nullable String token;

  Gateway(
      List<URI> endpoints,
      @Nullable SSLSocketFactory tls,
      @Nullable String user,
      @Nullable String password) {
    this.endpoints = List.copyOf(endpoints);
    this.tls = tls;
    this.user = user == null || user.isEmpty() ? null : user;
    this.password = password == null ? "" : password;
  }

  /** The endpoint the next request goes to. */
  URI endpoint() {
    return endpoints.get(current);
  }

  /** Nothing to close: every request has its own connection (or the JDK's keep-alive cache). */
  @Override
  public void close() {}

  @Override
  public Range range(String prefix, boolean firstCreated, Duration timeout) throws IOException {
    return read(
        prefix,
        firstCreated ? ",\"sort_order\":\"ASCEND\",\"sort_target\":\"CREATE\",\"limit\":1" : "",
        timeout);
  }

  @Override
  public Range newest(String prefix, int limit, Duration timeout) throws IOException {
    return read(
        prefix, ",\"sort_order\":\"DESCEND\",\"sort_target\":\"KEY\",\"limit\":" + limit, timeout);
  }

  private Range read(String prefix, String options, Duration timeout) throws IOException {
    String body =
        "{\"key\":\""
            + GatewayJson.base64(prefix)
            + "\",\"range_end\":\""
            + GatewayJson.rangeEnd(prefix)
            + "\""
            + options
            + "}";
    HttpURLConnection call = request("/v3/kv/range", body, timeout);
    try (InputStream in = call.getInputStream();
        JsonParser json = GatewayJson.JSON.createParser(in)) {
      long revision = 0;
      List<Kv> kvs = new ArrayList<>();
      GatewayJson.expect(json, JsonToken.START_OBJECT);
      while (json.nextToken() == JsonToken.FIELD_NAME) {
        String field = json.currentName();
        json.nextToken();
        switch (field) {
          case "header" -> revision = GatewayJson.header(json);
          case "kvs" -> {
            while (json.nextToken() == JsonToken.START_OBJECT) {
              kvs.add(GatewayJson.kv(json));
            }
          }
          default -> json.skipChildren();
        }
      }
      return new Range(revision, kvs);
    } catch (IOException e) {
      failed();
      throw e;
    }
  }

  /**
   * Watches the keys under {@code prefix} from {@code fromRevision}. {@code events} gets each
   * response's events as a {@code List<Event>} on a thread of its own, then one {@link IOException}
   * when the watch ends for any reason (never a silent end).
   */
  @Override
  public Watch watch(String prefix, long fromRevision, Duration timeout, Consumer<Object> events)
      throws IOException {
    String body =
        "{\"create_request\":{\"key\":\""
            + GatewayJson.base64(prefix)
            + "\",\"range_end\":\""
            + GatewayJson.rangeEnd(prefix)
            + "\",\"start_revision\":\""
            + fromRevision
            + "\"}}";
    HttpURLConnection call = request("/v3/watch", body, timeout);
    InputStream in;
    try {
      call.setReadTimeout(0);
      in = call.getInputStream();
    } catch (IOException e) {
      failed();
      throw e;
    }
    Thread reader =
        new Thread(() -> GatewayJson.readWatch(in, events), "conch-watch-" + endpoint().getPort());
    reader.setDaemon(true);
    reader.start();
    return call::disconnect;
  }

  /** Marks the endpoint as failed: the next request goes to the next one. */
  private void failed() {
    current = (current + 1) % endpoints.size();
  }

  /** POSTs {@code body}; returns the connection once etcd answered 200, else throws. */
  private HttpURLConnection request(String path, String body, Duration timeout) throws IOException {
    try {
      if (user != null && token == null) {
        token = authenticate(timeout);
      }
      HttpURLConnection call = post(path, body, timeout);
      if (call.getResponseCode() == HttpURLConnection.HTTP_OK) {
        return call;
      }
      String error = GatewayJson.error(call);
      if (user != null && error.contains("invalid auth token")) {
        // The token expired (etcd's simple tokens live five minutes): log in again, once.
        token = authenticate(timeout);
        call = post(path, body, timeout);
        if (call.getResponseCode() == HttpURLConnection.HTTP_OK) {
          return call;
        }
        error = GatewayJson.error(call);
      }
      throw new EtcdError(call.getResponseCode(), error);
    } catch (IOException e) {
      failed();
      throw e;
    }
  }

  private String authenticate(Duration timeout) throws IOException {
    HttpURLConnection call =
        post(
            "/v3/auth/authenticate",
            "{\"name\":"
                + GatewayJson.quote(Objects.requireNonNull(user, "authenticate without a user"))
                + ",\"password\":"
                + GatewayJson.quote(password)
                + "}",
            timeout);
    if (call.getResponseCode() != HttpURLConnection.HTTP_OK) {
      throw new EtcdError(call.getResponseCode(), GatewayJson.error(call));
    }
    try (InputStream in = call.getInputStream();
        JsonParser json = GatewayJson.JSON.createParser(in)) {
      GatewayJson.expect(json, JsonToken.START_OBJECT);
      while (json.nextToken() == JsonToken.FIELD_NAME) {
        String field = json.currentName();
        json.nextToken();
        if (field.equals("token")) {
          return json.getText();
        }
        json.skipChildren();
      }
    }
    throw new EtcdError("etcd answered the login without a token");
  }

  private HttpURLConnection post(String path, String body, Duration timeout) throws IOException {
    URI endpoint = endpoint();
    HttpURLConnection call =
        (HttpURLConnection) endpoint.resolve(path).toURL().openConnection(Proxy.NO_PROXY);
    if (call instanceof HttpsURLConnection https && tls != null) {
      https.setSSLSocketFactory(tls);
    }
    int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
    call.setConnectTimeout(millis);
    call.setReadTimeout(millis);
    call.setRequestMethod("POST");
    call.setDoOutput(true);
    call.setRequestProperty("Content-Type", "application/json");
    if (token != null && !path.equals("/v3/auth/authenticate")) {
      call.setRequestProperty("Authorization", token);
    }
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    call.setFixedLengthStreamingMode(bytes.length);
    try (OutputStream out = call.getOutputStream()) {
      out.write(bytes);
    }
    return call;
  }
}
