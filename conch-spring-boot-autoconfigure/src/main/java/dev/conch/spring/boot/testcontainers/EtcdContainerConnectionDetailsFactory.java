package dev.conch.spring.boot.testcontainers;

import dev.conch.spring.boot.autoconfigure.EtcdConnectionDetails;
import java.net.URI;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionDetailsFactory;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionSource;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.testcontainers.containers.Container;

/**
 * {@link ContainerConnectionDetailsFactory} to create {@link EtcdConnectionDetails} from a {@link
 * ServiceConnection @ServiceConnection}-annotated container of an etcd image ({@code etcd}, {@code
 * coreos/etcd}, {@code etcd-development/etcd}, {@code bitnami/etcd}), or of any image with
 * {@code @ServiceConnection(name = "etcd")}. The container must listen for clients on port 2379;
 * with {@code @Ssl...} annotations on the container the connection uses TLS.
 */
class EtcdContainerConnectionDetailsFactory
    extends ContainerConnectionDetailsFactory<Container<?>, EtcdConnectionDetails> {

  private static final List<String> ETCD_IMAGE_NAMES =
      List.of("etcd", "coreos/etcd", "etcd-development/etcd", "bitnami/etcd");

  /** etcd's client port. */
  static final int ETCD_PORT = 2379;

  EtcdContainerConnectionDetailsFactory() {
    super(ETCD_IMAGE_NAMES);
  }

  @Override
  protected EtcdConnectionDetails getContainerConnectionDetails(
      ContainerConnectionSource<Container<?>> source) {
    return new EtcdContainerConnectionDetails(source);
  }

  /** {@link EtcdConnectionDetails} backed by a {@link ContainerConnectionSource}. */
  private static final class EtcdContainerConnectionDetails
      extends ContainerConnectionDetails<Container<?>> implements EtcdConnectionDetails {

    private EtcdContainerConnectionDetails(ContainerConnectionSource<Container<?>> source) {
      super(source);
    }

    @Override
    public List<URI> getEndpoints() {
      String scheme = (getSslBundle() != null) ? "https" : "http";
      Container<?> container = getContainer();
      return List.of(
          URI.create(
              scheme + "://" + container.getHost() + ":" + container.getMappedPort(ETCD_PORT)));
    }

    @Override
    public @Nullable SslBundle getSslBundle() {
      return super.getSslBundle();
    }
  }
}
