package dev.conch.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import dev.conch.etcd.LeaderWatcher.Source.Event;
import dev.conch.etcd.LeaderWatcher.Source.Kv;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The JSON of etcd's gateway as {@link Gateway} reads and writes it, with Jackson's streaming
 * parser: the few shapes the read forms need (a range's header and keys, the watch stream, the
 * gateway's errors). Keys and values are base64 and 64-bit numbers are strings, as the gateway
 * writes them.
 */
final class GatewayJson {

  static final JsonFactory JSON = new JsonFactory();

  private GatewayJson() {}

  static void readWatch(InputStream in, Consumer<Object> events) {
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
          events.accept(new Gateway.EtcdError(error));
          return;
        }
        if (!batch.isEmpty()) {
          events.accept(batch);
        }
      }
      events.accept(new Gateway.EtcdError("the watch stream ended"));
    } catch (IOException | RuntimeException e) {
      events.accept(e instanceof IOException io ? io : new IOException(e));
    }
  }

  /** Reads one watch result into {@code batch}; returns why etcd ended the watch, if it did. */
  static @Nullable String watchResult(JsonParser json, List<Event> batch) throws IOException {
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

  /** etcd's words for a failed request: the gateway's {@code {"error", "message", "code"}}. */
  static String error(HttpURLConnection call) throws IOException {
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
  static String errorMessage(JsonParser json) throws IOException {
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

  static long header(JsonParser json) throws IOException {
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

  static Kv kv(JsonParser json) throws IOException {
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

  static void expect(JsonParser json, JsonToken token) throws IOException {
    if (json.nextToken() != token) {
      throw new Gateway.EtcdError("etcd answered something other than JSON");
    }
  }

  static String text(String base64) {
    return new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
  }

  static String base64(String text) {
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

  static String quote(String text) {
    return "\"" + new String(JsonStringEncoder.getInstance().quoteAsString(text)) + "\"";
  }
}
