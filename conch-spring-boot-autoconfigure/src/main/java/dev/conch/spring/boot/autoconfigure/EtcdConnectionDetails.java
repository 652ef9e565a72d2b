package dev.conch.spring.boot.autoconfigure;

import java.net.URI;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;
import org.springframework.boot.ssl.SslBundle;

/**
 * Details required to connect to etcd: from {@code conch.etcd.*} properties by default, or from a
 * service connection such as a Testcontainers etcd container.
 */
public interface EtcdConnectionDetails extends ConnectionDetails {

  /**
   * Client URLs of the etcd members.
   *
   * @return the endpoints, at least one
   */
  List<URI> getEndpoints();

  /**
   * Login user of etcd.
   *
   * @return the user, or {@code null} when etcd does not require a login
   */
  default @Nullable String getUsername() {
    return null;
  }

  /**
   * Login password of etcd.
   *
   * @return the password, or {@code null}
   */
  default @Nullable String getPassword() {
    return null;
  }

  /**
   * SSL bundle for TLS towards etcd.
   *
   * @return the bundle, or {@code null} for plain connections (or the JDK's trust store when an
   *     endpoint is https)
   */
  default @Nullable SslBundle getSslBundle() {
    return null;
  }
}
