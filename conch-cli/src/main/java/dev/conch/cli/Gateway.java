package dev.conch.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
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
import java.util.Arrays;
import java.util.Base64;
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
 * <p>Longer than most files here, on purpose: a small HTTP client of its own (requests, the
 * streaming watch, the few JSON shapes read with Jackson's streaming parser, errors, auth), so that
 * a read starts no gRPC, Netty or Vert.x.
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

  private static final JsonFactory JSON = new JsonFactory();

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
    String body =
        "{\"key\":\""
            + base64(prefix)
            + "\",\"range_end\":\""
            + rangeEnd(prefix)
            + "\""
            + (firstCreated
                ? ",\"sort_order\":\"ASCEND\",\"sort_target\":\"CREATE\",\"limit\":1"
                : "")
            + "}";
    HttpURLConnection call = request("/v3/kv/range", body, timeout);
    try (InputStream in = call.getInputStream();
        JsonParser json = JSON.createParser(in)) {
      long revision = 0;
      List<Kv> kvs = new ArrayList<>();
      expect(json, JsonToken.START_OBJECT);
      while (json.nextToken() == JsonToken.FIELD_NAME) {
        String field = json.currentName();
        json.nextToken();
        switch (field) {
          case "header" -> revision = header(json);
          case "kvs" -> {
            while (json.nextToken() == JsonToken.START_OBJECT) {
              kvs.add(kv(json));
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
            + base64(prefix)
            + "\",\"range_end\":\""
            + rangeEnd(prefix)
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
    Thread reader = new Thread(() -> readWatch(in, events), "conch-watch-" + endpoint().getPort());
    reader.setDaemon(true);
    reader.start();
    return call::disconnect;
  }

  private static void readWatch(InputStream in, Consumer<Object> events) {
    try (in;
        JsonParser json = JSON.createParser(in)) {
      while (json.nextToken() == JsonToken.START_OBJECT) {
        List<Event> batch = new ArrayList<>();
        String error = null;
        while (json.nextToken() == JsonToken.FIELD_NAME) {
          String field = json.currentName();
          json.nextToken();
          if (field.equals("result")) {
            error = watchResult(json, batch);
          } else if (field.equals("error")) {
            error = errorMessage(json);
          } else {
            json.skipChildren();
          }
        }
        if (error != null) {
          events.accept(new EtcdError(error));
          return;
        }
        if (!batch.isEmpty()) {
          events.accept(batch);
        }
      }
      events.accept(new EtcdError("the watch stream ended"));
    } catch (IOException | RuntimeException e) {
      events.accept(e instanceof IOException io ? io : new IOException(e));
    }
  }

  /** Reads one watch result into {@code batch}; returns why etcd ended the watch, if it did. */
  private static @Nullable String watchResult(JsonParser json, List<Event> batch)
      throws IOException {
    String ended = null;
    while (json.nextToken() == JsonToken.FIELD_NAME) {
      String field = json.currentName();
      json.nextToken();
      switch (field) {
        case "canceled" -> {
          if (json.getValueAsBoolean()) {
            ended = ended == null ? "etcd cancelled the watch" : ended;
          }
        }
        case "cancel_reason" -> ended = "etcd cancelled the watch: " + json.getText();
        case "compact_revision" -> {
          if (Long.parseLong(json.getText()) > 0) {
            ended = "the watch's revision was compacted";
          }
        }
        case "events" -> {
          while (json.nextToken() == JsonToken.START_OBJECT) {
            boolean deleted = false;
            Kv kv = null;
            while (json.nextToken() == JsonToken.FIELD_NAME) {
              String name = json.currentName();
              json.nextToken();
              if (name.equals("type")) {
                deleted = "DELETE".equals(json.getText());
              } else if (name.equals("kv")) {
                kv = kv(json);
              } else {
                json.skipChildren();
              }
            }
            if (kv != null) {
              batch.add(new Event(deleted, kv));
            }
          }
        }
        default -> json.skipChildren();
      }
    }
    return ended;
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
      String error = error(call);
      if (user != null && error.contains("invalid auth token")) {
        // The token expired (etcd's simple tokens live five minutes): log in again, once.
        token = authenticate(timeout);
        call = post(path, body, timeout);
        if (call.getResponseCode() == HttpURLConnection.HTTP_OK) {
          return call;
        }
        error = error(call);
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
                + quote(Objects.requireNonNull(user, "authenticate without a user"))
                + ",\"password\":"
                + quote(password)
                + "}",
            timeout);
    if (call.getResponseCode() != HttpURLConnection.HTTP_OK) {
      throw new EtcdError(call.getResponseCode(), error(call));
    }
    try (InputStream in = call.getInputStream();
        JsonParser json = JSON.createParser(in)) {
      expect(json, JsonToken.START_OBJECT);
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

  /** etcd's words for a failed request: the gateway's {@code {"error", "message", "code"}}. */
  private static String error(HttpURLConnection call) throws IOException {
    int status = call.getResponseCode();
    InputStream in = call.getErrorStream();
    if (in == null) {
      return "HTTP " + status;
    }
    byte[] raw;
    try (in) {
      raw = in.readAllBytes();
    }
    try (JsonParser json = JSON.createParser(raw)) {
      if (json.nextToken() == JsonToken.START_OBJECT) {
        return errorMessage(json);
      }
    } catch (IOException e) {
      // Not JSON (a plain-text answer, e.g. "Client sent an HTTP request to an HTTPS server").
    }
    String text = new String(raw, StandardCharsets.UTF_8).strip();
    return "HTTP " + status + (text.isEmpty() ? "" : ": " + text);
  }

  /**
   * ReadForms {@code {"error": "...", "message": "...", "code": n}} from just inside the object.
   */
  private static String errorMessage(JsonParser json) throws IOException {
    String message = null;
    String error = null;
    if (json.currentToken() != JsonToken.START_OBJECT) {
      return json.getText();
    }
    while (json.nextToken() == JsonToken.FIELD_NAME) {
      String field = json.currentName();
      json.nextToken();
      switch (field) {
        case "message" -> message = json.getText();
        case "error" -> error = json.getText();
        default -> json.skipChildren();
      }
    }
    String text = message != null && !message.isBlank() ? message : error;
    return text == null ? "etcd answered an error" : text;
  }

  private static long header(JsonParser json) throws IOException {
    long revision = 0;
    while (json.nextToken() == JsonToken.FIELD_NAME) {
      String field = json.currentName();
      json.nextToken();
      if (field.equals("revision")) {
        revision = Long.parseLong(json.getText());
      } else {
        json.skipChildren();
      }
    }
    return revision;
  }

  private static Kv kv(JsonParser json) throws IOException {
    String key = "";
    String value = "";
    long create = 0;
    long mod = 0;
    long lease = 0;
    while (json.nextToken() == JsonToken.FIELD_NAME) {
      String field = json.currentName();
      json.nextToken();
      switch (field) {
        case "key" -> key = text(json.getText());
        case "value" -> value = text(json.getText());
        case "create_revision" -> create = Long.parseLong(json.getText());
        case "mod_revision" -> mod = Long.parseLong(json.getText());
        case "lease" -> lease = Long.parseLong(json.getText());
        default -> json.skipChildren();
      }
    }
    return new Kv(key, value, create, mod, lease);
  }

  private static void expect(JsonParser json, JsonToken token) throws IOException {
    if (json.nextToken() != token) {
      throw new EtcdError("etcd answered something other than JSON");
    }
  }

  private static String text(String base64) {
    return new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
  }

  private static String base64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }

  /** The end of the prefix's range, as etcd's clients compute it: the last byte plus one. */
  static String rangeEnd(String prefix) {
    byte[] end = prefix.getBytes(StandardCharsets.UTF_8);
    for (int i = end.length - 1; i >= 0; i--) {
      if (end[i] != (byte) 0xff) {
        end[i]++;
        return Base64.getEncoder().encodeToString(Arrays.copyOf(end, i + 1));
      }
    }
    // All 0xff: to the end of the key space.
    return Base64.getEncoder().encodeToString(new byte[] {0});
  }

  private static String quote(String text) {
    return "\"" + new String(JsonStringEncoder.getInstance().quoteAsString(text)) + "\"";
  }
}
