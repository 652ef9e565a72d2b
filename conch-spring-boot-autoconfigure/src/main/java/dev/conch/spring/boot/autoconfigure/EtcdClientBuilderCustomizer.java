package dev.conch.spring.boot.autoconfigure;

import io.etcd.jetcd.ClientBuilder;

/**
 * Customizes the jetcd {@link ClientBuilder} of the auto-configured client, after endpoints,
 * credentials and TLS are set; beans of this type are applied in {@code @Order}.
 */
@FunctionalInterface
public interface EtcdClientBuilderCustomizer {

  /**
   * Customizes {@code builder}.
   *
   * @param builder the builder to customize
   */
  void customize(ClientBuilder builder);
}
