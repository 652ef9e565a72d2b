package dev.conch.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The HTTP calls the harness makes to etcd: {@code /health}, the grpc-gateway's status, and {@code
 * /metrics}. Plain {@link HttpURLConnection} because it is blocking, spawns no threads and has both
 * a connect and a read timeout, which matters for a SIGSTOPped member whose kernel still accepts.
 */
final class EtcdHttp {

  private EtcdHttp() {}

  /** A member's answer to the gateway's maintenance status call. */
  record Status(String memberId, @Nullable String leaderId, long raftTerm) {}

  /** True if {@code endpoint}/health answers {@code "health":"true"} within {@code timeout}. */
  static boolean healthy(String endpoint, Duration timeout) {
    return call("GET", endpoint + "/health", null, timeout)
        .map(body -> body.replace(" ", "").contains("\"health\":\"true\""))
        .orElse(false);
  }

  /** The member's status, or empty if it did not answer within {@code timeout}. */
  static Optional<Status> status(String endpoint, Duration timeout) {
    return call("POST", endpoint + "/v3/maintenance/status", "{}", timeout)
        .flatMap(
            body -> {
              String memberId = field(body, "member_id");
              if (memberId == null) {
                return Optional.empty();
              }
              // The gateway omits zero values, so a member without a leader has no "leader".
              String leader = field(body, "leader");
              String term = field(body, "raft_term");
              return Optional.of(
                  new Status(memberId, leader, term == null ? 0 : Long.parseLong(term)));
            });
  }

  /**
   * The sum of every sample of the Prometheus metric {@code name} (all its label sets) that the
   * member reports, or empty if it did not answer within {@code timeout}.
   */
  static Optional<Double> metric(String endpoint, String name, Duration timeout) {
    return call("GET", endpoint + "/metrics", null, timeout)
        .map(
            body ->
                body.lines()
                    .filter(line -> line.startsWith(name + " ") || line.startsWith(name + "{"))
                    .mapToDouble(
                        line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                    .sum());
  }

  private static @Nullable String field(String json, String name) {
    // uint64 fields come as JSON strings from the gateway; a regex avoids a JSON dependency.
    Matcher matcher = Pattern.compile("\"" + name + "\"\\s*:\\s*\"?(\\d+)\"?").matcher(json);
    return matcher.find() ? matcher.group(1) : null;
  }

  private static Optional<String> call(
      String method, String url, @Nullable String body, Duration timeout) {
    HttpURLConnection connection = null;
    try {
      connection = (HttpURLConnection) URI.create(url).toURL().openConnection();
      int millis = (int) Math.max(1, timeout.toMillis());
      connection.setConnectTimeout(millis);
      connection.setReadTimeout(millis);
      connection.setRequestMethod(method);
      connection.setUseCaches(false);
      if (body != null) {
        connection.setDoOutput(true);
        connection.setRequestProperty("Content-Type", "application/json");
        try (OutputStream out = connection.getOutputStream()) {
          out.write(body.getBytes(StandardCharsets.UTF_8));
        }
      }
      // etcd answers 503 with a JSON body when unhealthy; that body is still an answer.
      InputStream in =
          connection.getResponseCode() >= 400
              ? connection.getErrorStream()
              : connection.getInputStream();
      if (in == null) {
        return Optional.empty();
      }
      try (in) {
        return Optional.of(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      }
    } catch (IOException | IllegalArgumentException e) {
      return Optional.empty();
    } finally {
      if (connection != null) {
        connection.disconnect();
      }
    }
  }
}
