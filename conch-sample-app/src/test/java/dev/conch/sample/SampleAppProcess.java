package dev.conch.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * One instance of the sample app, started with {@code java -jar} as a user would, and asked about
 * its leadership over HTTP (the actuator {@code conch} endpoint and health).
 *
 * <p>Every instance is also killed by a JVM shutdown hook, so a test JVM that dies early leaves no
 * process behind.
 */
final class SampleAppProcess implements AutoCloseable {

  static final String OFFICE = "reports";

  private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime()
        .addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly), "sample-reaper"));
  }

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();

  /** Longer than the app's etcd call timeout (2 s), so that a read while etcd is down answers. */
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(4);

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final String id;

  private final int port;

  private final Path log;

  private final Process process;

  private SampleAppProcess(String id, int port, Path log, Process process) {
    this.id = id;
    this.port = port;
    this.log = log;
    this.process = process;
  }

  /**
   * Starts {@code jar} as candidate {@code id} on {@code port}, its output in {@code dir/<id>.log}.
   *
   * @param jvmArgs options of the JVM, such as {@code -Dspring.aot.enabled=true}
   * @param args further {@code --property=value} arguments
   */
  static SampleAppProcess start(
      Path jar,
      Path dir,
      String id,
      int port,
      String endpoints,
      List<String> jvmArgs,
      List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // Quicker start-up for a short-lived test instance; the app itself does not depend on these.
    command.addAll(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx256m"));
    command.addAll(jvmArgs);
    command.addAll(List.of("-jar", jar.toString()));
    command.add("--server.port=" + port);
    command.add("--conch.etcd.endpoints=" + endpoints);
    command.add("--conch.candidate.id=" + id);
    command.addAll(args);
    Path log = dir.resolve(id + ".log");
    try {
      Files.createDirectories(dir);
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
              .start();
      LIVE.add(process);
      return new SampleAppProcess(id, port, log, process);
    } catch (IOException e) {
      throw new UncheckedIOException("Could not start " + id, e);
    }
  }

  /** The candidate id, as it appears in the holder JSON. */
  String id() {
    return this.id;
  }

  long pid() {
    return this.process.pid();
  }

  /** The HTTP port of the page and the actuator, on 127.0.0.1. */
  int port() {
    return this.port;
  }

  boolean isAlive() {
    return this.process.isAlive();
  }

  /** SIGTERM: Spring Boot shuts down gracefully and conch resigns on the way. */
  void terminate() {
    this.process.destroy();
  }

  /** SIGKILL: a crash; the lease stays until etcd expires it. */
  void kill() {
    this.process.destroyForcibly();
  }

  /** Waits until the process has exited; false at the deadline. */
  boolean awaitExit(Duration timeout) throws InterruptedException {
    return this.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Whether the app answers HTTP at all (its web server is up). */
  boolean isUp() {
    return get("/actuator/health").status() > 0;
  }

  /**
   * Whether the app says it holds the office: {@code GET /actuator/conch/reports/assert} is 200.
   */
  boolean holds() {
    return assertStatus() == 200;
  }

  /**
   * Who leads the office according to this app ({@code GET /actuator/conch/reports}): a leader on
   * 200, empty on 404 (vacant).
   *
   * @throws IllegalStateException on any other answer (503: etcd cannot be read)
   */
  Optional<Leader> leader() {
    Answer answer = get("/actuator/conch/" + OFFICE);
    return switch (answer.status()) {
      case 200 -> Optional.of(Leader.of(JSON.readTree(answer.body())));
      case 404 -> Optional.empty();
      default -> throw new IllegalStateException(this.id + " answered " + answer);
    };
  }

  /**
   * Whether the app believes it leads the office: its state is {@code LEADING} or it has a token in
   * the overview ({@code GET /actuator/conch}), which answers from memory, also without etcd.
   *
   * @throws IllegalStateException when the overview does not answer 200
   */
  boolean claims() {
    Answer answer = get("/actuator/conch");
    if (answer.status() != 200) {
      throw new IllegalStateException(this.id + " answered " + answer);
    }
    for (JsonNode office : JSON.readTree(answer.body()).path("offices")) {
      if (OFFICE.equals(office.path("office").asString())) {
        return "LEADING".equals(office.path("state").asString())
            || !office.path("token").isNull() && !office.path("token").isMissingNode();
      }
    }
    throw new IllegalStateException(this.id + " takes no part in " + OFFICE + ": " + answer);
  }

  /** The HTTP status of the assert URL: 200 held, 409 not, 503 etcd unreachable, -1 no answer. */
  int assertStatus() {
    return get("/actuator/conch/" + OFFICE + "/assert").status();
  }

  /** The HTTP status of the leader view: 200, 404, 503, or -1 when the app did not answer. */
  int leaderStatus() {
    return get("/actuator/conch/" + OFFICE).status();
  }

  /** The overall health status ({@code UP}, {@code DOWN}, ...), or empty when it did not answer. */
  Optional<String> health() {
    Answer answer = get("/actuator/health");
    if (answer.status() < 0) {
      return Optional.empty();
    }
    return Optional.of(JSON.readTree(answer.body()).path("status").asString());
  }

  /** The status of the conch health component, or empty when there is none or no answer. */
  Optional<String> conchHealth() {
    Answer answer = get("/actuator/health");
    if (answer.status() < 0) {
      return Optional.empty();
    }
    JsonNode conch = JSON.readTree(answer.body()).path("components").path("conch");
    return conch.isMissingNode() ? Optional.empty() : Optional.of(conch.path("status").asString());
  }

  /** The body of the page at {@code /}. */
  String page() {
    return get("/").body();
  }

  /** Everything the app (and any child it supervises) has written so far. */
  String log() {
    try {
      return Files.readString(this.log);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The last lines of the app's output, for failure messages. */
  String logTail() {
    List<String> lines = log().lines().toList();
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
  }

  /** One GET; status -1 when the app could not be reached in time. */
  Answer get(String path) {
    return send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
            .timeout(REQUEST_TIMEOUT)
            .build());
  }

  /** One GET asking for the media type {@code accept}; status -1 when the app did not answer. */
  Answer get(String path, String accept) {
    return send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
            .timeout(REQUEST_TIMEOUT)
            .header("Accept", accept)
            .build());
  }

  /**
   * One POST of a JSON {@code body}, with HTTP basic {@code user}:{@code password} unless {@code
   * user} is null; status -1 when the app could not be reached in time.
   */
  Answer post(String path, String body, String user, String password) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
            .timeout(REQUEST_TIMEOUT)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (user != null) {
      String credentials = user + ":" + password;
      request.header(
          "Authorization",
          "Basic "
              + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8)));
    }
    return send(request.build());
  }

  private Answer send(HttpRequest request) {
    try {
      HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
      return new Answer(response.statusCode(), response.body());
    } catch (IOException e) {
      return new Answer(-1, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Answer(-1, e.toString());
    }
  }

  /** Kills the app if it still runs and waits until it is gone. */
  @Override
  public void close() {
    this.process.destroyForcibly();
    try {
      if (!this.process.waitFor(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException(this.id + " (pid " + pid() + ") did not exit");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    LIVE.remove(this.process);
  }

  @Override
  public String toString() {
    return this.id + " (pid " + pid() + ", port " + this.port + ", log " + this.log + ")";
  }

  /** An HTTP answer. */
  record Answer(int status, String body) {}

  /**
   * The leader of the office as the endpoint shows it.
   *
   * @param id the leader's candidate id
   * @param token its fencing token
   * @param since when it won
   */
  record Leader(String id, long token, Instant since) {

    static Leader of(JsonNode holder) {
      JsonNode token = holder.has("token") ? holder.get("token") : holder.path("rev");
      JsonNode since = holder.path("since");
      return new Leader(
          holder.path("id").asString(),
          token.asLong(),
          since.isString() ? Instant.parse(since.asString()) : null);
    }
  }
}
