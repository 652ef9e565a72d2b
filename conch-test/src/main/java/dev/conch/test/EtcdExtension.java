package dev.conch.test;

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
 * JUnit 5 extension that runs a real {@link EtcdCluster} for a test class or for each test.
 *
 * <p>In a {@code static} field, one cluster serves the whole class (started before all tests,
 * closed after all, shared by {@code @Nested} classes):
 *
 * <pre>{@code
 * @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);
 * }</pre>
 *
 * <p>In an instance field, each test gets a fresh cluster, closed after it:
 *
 * <pre>{@code
 * @RegisterExtension final EtcdExtension etcd = EtcdExtension.members(3);
 * }</pre>
 *
 * <p>Test methods, lifecycle methods and (static use only) constructors may declare an {@link
 * EtcdCluster} parameter to receive the running cluster. Register one such extension per class, or
 * JUnit cannot tell which one should resolve the parameter.
 */
public final class EtcdExtension
    implements BeforeAllCallback,
        AfterAllCallback,
        BeforeEachCallback,
        AfterEachCallback,
        ParameterResolver {

  private final EtcdCluster.Builder builder;
  private @Nullable EtcdCluster cluster;
  private @Nullable String
      ownerId; // unique id of the context whose "after" callback closes the cluster

  private EtcdExtension(EtcdCluster.Builder builder) {
    this.builder = builder;
  }

  /**
   * An extension running a cluster of {@code members} members.
   *
   * @param members 1 or 3
   * @throws IllegalArgumentException for any other size
   */
  public static EtcdExtension members(int members) {
    return new EtcdExtension(EtcdCluster.builder().members(members));
  }

  /** An extension running the cluster that {@code builder} describes. */
  public static EtcdExtension of(EtcdCluster.Builder builder) {
    return new EtcdExtension(builder);
  }

  /**
   * The running cluster.
   *
   * @throws IllegalStateException outside the tests this extension is registered for
   */
  public synchronized EtcdCluster cluster() {
    if (cluster == null) {
      throw new IllegalStateException(
          "No etcd cluster is running: use EtcdExtension via @RegisterExtension and only during"
              + " the tests it is registered for");
    }
    return cluster;
  }

  /** Starts the class-wide cluster when registered in a static field. */
  @Override
  public void beforeAll(ExtensionContext context) {
    startIfNone(context);
  }

  /** Starts a per-test cluster when registered in an instance field. */
  @Override
  public void beforeEach(ExtensionContext context) {
    startIfNone(context);
  }

  /** Closes a per-test cluster. */
  @Override
  public void afterEach(ExtensionContext context) {
    closeIfOwner(context);
  }

  /** Closes the class-wide cluster. */
  @Override
  public void afterAll(ExtensionContext context) {
    closeIfOwner(context);
  }

  /** Whether the parameter is an {@link EtcdCluster}. */
  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == EtcdCluster.class;
  }

  /** The running cluster. */
  @Override
  public synchronized Object resolveParameter(
      ParameterContext parameter, ExtensionContext context) {
    if (cluster == null) {
      throw new ParameterResolutionException(
          "No etcd cluster is running yet for "
              + parameter.getParameter()
              + "; a constructor can only receive the cluster of a static EtcdExtension");
    }
    return cluster;
  }

  private synchronized void startIfNone(ExtensionContext context) {
    // Whichever callback comes first owns the cluster: beforeAll for a static field, beforeEach
    // for an instance field, which is registered too late to see beforeAll. A @Nested class runs
    // beforeAll again and must reuse, not restart, the enclosing class's cluster.
    if (cluster == null) {
      cluster = builder.build();
      ownerId = context.getUniqueId();
    }
  }

  private synchronized void closeIfOwner(ExtensionContext context) {
    if (cluster != null && context.getUniqueId().equals(ownerId)) {
      try {
        cluster.close();
      } finally {
        cluster = null;
        ownerId = null;
      }
    }
  }

  @Override
  public String toString() {
    return "EtcdExtension[" + (cluster == null ? "not running" : cluster) + "]";
  }
}
