package dev.conch.test;

/**
 * JUnit 5 extension that runs a real {@link PostgresServer} for a test class (in a {@code static}
 * field) or for each test (in an instance field), and injects it as a {@code PostgresServer}
 * parameter:
 *
 * <pre>{@code
 * @RegisterExtension static final PostgresExtension postgres = PostgresExtension.create();
 * }</pre>
 */
public final class PostgresExtension extends ServerExtension<PostgresServer> {

  private PostgresExtension(PostgresServer.Builder builder) {
    super(PostgresServer.class, builder::start);
  }

  /** An extension running a server with the default settings. */
  public static PostgresExtension create() {
    return new PostgresExtension(PostgresServer.builder());
  }

  /** An extension running the server that {@code builder} describes. */
  public static PostgresExtension of(PostgresServer.Builder builder) {
    return new PostgresExtension(builder);
  }
}
