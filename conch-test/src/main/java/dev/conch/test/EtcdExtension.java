package dev.conch.test;

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
public final class EtcdExtension extends ServerExtension<EtcdCluster> {

  private EtcdExtension(EtcdCluster.Builder builder) {
    super(EtcdCluster.class, builder::build);
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
  public EtcdCluster cluster() {
    return server();
  }
}
