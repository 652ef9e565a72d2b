package dev.conch.spring.boot.docker.compose;

import dev.conch.spring.boot.autoconfigure.EtcdConnectionDetails;
import java.net.URI;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.docker.compose.core.RunningService;
import org.springframework.boot.docker.compose.service.connection.DockerComposeConnectionDetailsFactory;
import org.springframework.boot.docker.compose.service.connection.DockerComposeConnectionSource;
import org.springframework.boot.ssl.SslBundle;

/**
 * {@link DockerComposeConnectionDetailsFactory} to create {@link EtcdConnectionDetails} for an etcd
 * service of the application's {@code compose.yaml}: an image named {@code etcd}, {@code
 * coreos/etcd} ({@code quay.io}), {@code etcd-development/etcd} ({@code gcr.io}) or {@code
 * bitnami/etcd}, on any registry, or any image labelled {@code
 * org.springframework.boot.service-connection: etcd}, the names the Testcontainers factory accepts.
 *
 * <p>The service must publish etcd's client port 2379. With {@code
 * org.springframework.boot.sslbundle.*} labels on the service the connection uses TLS. For {@code
 * bitnami/etcd}, {@code ETCD_ROOT_PASSWORD} in the service's environment is the password of user
 * {@code root}.
 */
class EtcdDockerComposeConnectionDetailsFactory
    extends DockerComposeConnectionDetailsFactory<EtcdConnectionDetails> {

  private static final String[] ETCD_IMAGE_NAMES = {
    "etcd", "quay.io/coreos/etcd", "gcr.io/etcd-development/etcd", "bitnami/etcd"
  };

  /** etcd's client port. */
  static final int ETCD_PORT = 2379;

  EtcdDockerComposeConnectionDetailsFactory() {
    super(ETCD_IMAGE_NAMES);
  }

  @Override
  protected EtcdConnectionDetails getDockerComposeConnectionDetails(
      DockerComposeConnectionSource source) {
    return new EtcdDockerComposeConnectionDetails(source.getRunningService());
  }

  /** {@link EtcdConnectionDetails} backed by an etcd {@link RunningService}. */
  static final class EtcdDockerComposeConnectionDetails extends DockerComposeConnectionDetails
      implements EtcdConnectionDetails {

    private final List<URI> endpoints;

    private final @Nullable SslBundle sslBundle;

    private final @Nullable String password;

    EtcdDockerComposeConnectionDetails(RunningService service) {
      super(service);
      this.sslBundle = getSslBundle(service);
      String scheme = (this.sslBundle != null) ? "https" : "http";
      this.endpoints = List.of(URI.create(scheme + "://" + service.host() + ":" + port(service)));
      this.password = service.env().get("ETCD_ROOT_PASSWORD");
    }

    private static int port(RunningService service) {
      try {
        return service.ports().get(ETCD_PORT);
      } catch (IllegalStateException ex) {
        throw new IllegalStateException(
            "Docker Compose service '"
                + service.name()
                + "' ("
                + service.image()
                + ") does not publish etcd's client port "
                + ETCD_PORT
                + ": add \"2379\" to its ports",
            ex);
      }
    }

    @Override
    public List<URI> getEndpoints() {
      return this.endpoints;
    }

    @Override
    public @Nullable String getUsername() {
      return (this.password != null) ? "root" : null;
    }

    @Override
    public @Nullable String getPassword() {
      return this.password;
    }

    @Override
    public @Nullable SslBundle getSslBundle() {
      return this.sslBundle;
    }
  }
}
