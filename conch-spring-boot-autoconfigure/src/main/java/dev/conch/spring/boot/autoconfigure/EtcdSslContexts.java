package dev.conch.spring.boot.autoconfigure;

import io.grpc.netty.GrpcSslContexts;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.util.Arrays;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslManagerBundle;
import org.springframework.boot.ssl.SslOptions;

/** Turns a Spring Boot {@link SslBundle} into the netty {@link SslContext} jetcd connects with. */
final class EtcdSslContexts {

  private EtcdSslContexts() {}

  /**
   * A client context for gRPC over TLS (HTTP/2 by ALPN) that trusts and presents what {@code
   * bundle} holds; with no bundle, the JDK's default trust store and no client certificate.
   */
  static SslContext forClient(@Nullable SslBundle bundle) {
    SslContextBuilder builder = GrpcSslContexts.forClient();
    if (bundle != null) {
      SslManagerBundle managers = bundle.getManagers();
      builder.keyManager(managers.getKeyManagerFactory());
      builder.trustManager(managers.getTrustManagerFactory());
      SslOptions options = bundle.getOptions();
      if (options.getCiphers() != null) {
        builder.ciphers(Arrays.asList(options.getCiphers()));
      }
      if (options.getEnabledProtocols() != null) {
        builder.protocols(options.getEnabledProtocols());
      }
    }
    try {
      return builder.build();
    } catch (SSLException ex) {
      throw new IllegalStateException("Could not build the TLS context for etcd", ex);
    }
  }
}
