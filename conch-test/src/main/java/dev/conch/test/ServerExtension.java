package dev.conch.test;

import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * A JUnit 5 extension that runs one server for a test class (static field) or for each test
 * (instance field), closes it after, and injects it as a parameter of its type; the database
 * extensions and {@link EtcdExtension} are this one with their server.
 */
abstract class ServerExtension<S extends AutoCloseable>
    implements BeforeAllCallback,
        AfterAllCallback,
        BeforeEachCallback,
        AfterEachCallback,
        ParameterResolver {

  private final Class<S> type;
  private final Supplier<S> starter;
  private @Nullable S server;
  private @Nullable String
      ownerId; // unique id of the context whose "after" callback closes the server

  ServerExtension(Class<S> type, Supplier<S> starter) {
    this.type = type;
    this.starter = starter;
  }

  /**
   * The running server.
   *
   * @throws IllegalStateException outside the tests this extension is registered for
   */
  public synchronized S server() {
    if (server == null) {
      throw new IllegalStateException(
          "No "
              + type.getSimpleName()
              + " is running: register the extension with @RegisterExtension and use it only"
              + " during the tests it is registered for");
    }
    return server;
  }

  /** Starts the class-wide server when registered in a static field. */
  @Override
  public void beforeAll(ExtensionContext context) {
    startIfNone(context);
  }

  /** Starts a per-test server when registered in an instance field. */
  @Override
  public void beforeEach(ExtensionContext context) {
    startIfNone(context);
  }

  /** Closes a per-test server. */
  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    closeIfOwner(context);
  }

  /** Closes the class-wide server. */
  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    closeIfOwner(context);
  }

  /** Whether the parameter is of the server's type. */
  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == type;
  }

  /** The running server. */
  @Override
  public synchronized Object resolveParameter(
      ParameterContext parameter, ExtensionContext context) {
    if (server == null) {
      throw new ParameterResolutionException(
          "No " + type.getSimpleName() + " is running yet for " + parameter.getParameter());
    }
    return server;
  }

  private synchronized void startIfNone(ExtensionContext context) {
    // Whichever callback comes first owns the server: beforeAll for a static field, beforeEach
    // for an instance field, which is registered too late to see beforeAll. A @Nested class runs
    // beforeAll again and must reuse, not restart, the enclosing class's server.
    if (server == null) {
      server = starter.get();
      ownerId = context.getUniqueId();
    }
  }

  private synchronized void closeIfOwner(ExtensionContext context) throws Exception {
    if (server != null && context.getUniqueId().equals(ownerId)) {
      try {
        server.close();
      } finally {
        server = null;
        ownerId = null;
      }
    }
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "[" + (server == null ? "not running" : server) + "]";
  }
}
