package dev.conch.spring.boot.autoconfigure.app;

import dev.conch.Election;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A {@link TestApplication} started with {@code SpringApplication} on a free port, and a plain HTTP
 * client for it: what a script or a load balancer would see.
 */
public final class RunningApp implements AutoCloseable {

  private static final JsonMapper json = JsonMapper.builder().build();

  private static final Duration HTTP_TIMEOUT = Duration.ofSeconds(15);

  private final ConfigurableApplicationContext context;

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private final URI base;

  private RunningApp(ConfigurableApplicationContext context) {
    this.context = context;
    String port = context.getEnvironment().getProperty("local.server.port");
    this.base = URI.create("http://127.0.0.1:" + Objects.requireNonNull(port, "no web server"));
  }

  /**
   * Starts an application with {@code properties} ({@code name=value}) over these defaults: a free
   * port, the conch, health and metrics endpoints exposed, health details shown, a 2 s etcd
   * timeout.
   */
  public static RunningApp start(String... properties) {
    // By name, so that a property given here replaces its default rather than joining it.
    Map<String, String> all = new LinkedHashMap<>();
    for (String property :
        List.of(
            "server.port=0",
            "spring.main.banner-mode=off",
            "spring.main.register-shutdown-hook=false",
            "management.endpoints.web.exposure.include=conch,health,metrics",
            "management.endpoint.health.show-details=always",
            "conch.etcd.timeout=2s")) {
      put(all, property);
    }
    for (String property : properties) {
      put(all, property);
    }
    String[] args =
        all.entrySet().stream()
            .map(e -> "--" + e.getKey() + "=" + e.getValue())
            .toArray(String[]::new);
    return new RunningApp(new SpringApplicationBuilder(TestApplication.class).run(args));
  }

  /** {@code text} as JSON, to compare with a response. */
  public static JsonNode json(String text) {
    return json.readTree(text);
  }

  private static void put(Map<String, String> properties, String property) {
    int equals = property.indexOf('=');
    properties.put(property.substring(0, equals), property.substring(equals + 1));
  }

  /** The application's context. */
  public ConfigurableApplicationContext context() {
    return this.context;
  }

  /** The candidate for the default office. */
  public Election election() {
    return this.context.getBean(Election.class);
  }

  /** {@code GET path}. */
  public Response get(String path) {
    return send(HttpRequest.newBuilder(this.base.resolve(path)).GET());
  }

  /** {@code POST path} with a JSON body. */
  public Response post(String path, String body) {
    return send(
        HttpRequest.newBuilder(this.base.resolve(path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body)));
  }

  private Response send(HttpRequest.Builder request) {
    try {
      HttpResponse<String> response =
          this.http.send(
              request.timeout(HTTP_TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
      return new Response(response.statusCode(), response.body());
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);
    } catch (InterruptedException ex) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(ex);
    }
  }

  /** Closes the context: the application shuts down as it would in production. */
  @Override
  public void close() {
    this.context.close();
  }

  /**
   * An HTTP response.
   *
   * @param status the status code
   * @param body the body as sent
   */
  public record Response(int status, String body) {

    /** The body as JSON. */
    public JsonNode json() {
      return json.readTree(this.body);
    }

    @Override
    public String toString() {
      return this.status + " " + this.body;
    }
  }
}
