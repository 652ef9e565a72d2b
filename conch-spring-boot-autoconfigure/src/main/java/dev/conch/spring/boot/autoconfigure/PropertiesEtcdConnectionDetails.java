package dev.conch.spring.boot.autoconfigure;

import dev.conch.InvalidArgumentException;
import dev.conch.etcd.EtcdClients;
import java.net.URI;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.util.StringUtils;

/** Adapts {@link ConchProperties.Etcd} to {@link EtcdConnectionDetails}. */
final class PropertiesEtcdConnectionDetails implements EtcdConnectionDetails {

  private final ConchProperties.Etcd properties;

  private final @Nullable SslBundles sslBundles;

  PropertiesEtcdConnectionDetails(
      ConchProperties.Etcd properties, @Nullable SslBundles sslBundles) {
    this.properties = properties;
    this.sslBundles = sslBundles;
  }

  /**
   * The configured endpoints, checked.
   *
   * @throws InvalidArgumentException naming {@code conch.etcd.endpoints} when one is not an http or
   *     https URL with host and port
   */
  @Override
  public List<URI> getEndpoints() {
    // An element may itself be comma-separated, as etcdctl's --endpoints is.
    String endpoints = String.join(",", this.properties.getEndpoints());
    return SettingProperties.SHARED.check(() -> EtcdClients.parseEndpoints(endpoints));
  }

  @Override
  public @Nullable String getUsername() {
    return this.properties.getUsername();
  }

  @Override
  public @Nullable String getPassword() {
    return this.properties.getPassword();
  }

  /**
   * The bundle named by {@code conch.etcd.ssl.bundle}.
   *
   * @throws IllegalStateException when a bundle is named but the context has no SSL bundles
   */
  @Override
  public @Nullable SslBundle getSslBundle() {
    String bundle = this.properties.getSsl().getBundle();
    if (!StringUtils.hasLength(bundle)) {
      return null;
    }
    if (this.sslBundles == null) {
      throw new IllegalStateException(
          "conch.etcd.ssl.bundle is set to '" + bundle + "' but no SSL bundles are configured");
    }
    return this.sslBundles.getBundle(bundle);
  }
}
