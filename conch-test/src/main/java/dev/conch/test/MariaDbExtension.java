package dev.conch.test;

/**
 * JUnit 5 extension that runs a real {@link MariaDbServer} for a test class (in a {@code static}
 * field) or for each test (in an instance field), and injects it as a {@code MariaDbServer}
 * parameter:
 *
 * <pre>{@code
 * @RegisterExtension static final MariaDbExtension mariadb = MariaDbExtension.create();
 * }</pre>
 */
public final class MariaDbExtension extends ServerExtension<MariaDbServer> {

  private MariaDbExtension(MariaDbServer.Builder builder) {
    super(MariaDbServer.class, builder::start);
  }

  /** An extension running a server with the default options. */
  public static MariaDbExtension create() {
    return new MariaDbExtension(MariaDbServer.builder());
  }

  /** An extension running the server that {@code builder} describes. */
  public static MariaDbExtension of(MariaDbServer.Builder builder) {
    return new MariaDbExtension(builder);
  }
}
