package dev.conch.spring.boot.autoconfigure;

import dev.conch.etcd.EtcdClients;
import io.etcd.jetcd.Client;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;

/**
 * Reconnects conch's etcd client with the new certificates when the SSL bundle {@code
 * conch.etcd.ssl.bundle} names is reloaded ({@code
 * spring.ssl.bundle.pem.<name>.reload-on-update=true}, or {@code .jks.}): a client built from the
 * new bundle replaces the one in use, which is closed.
 *
 * <p>Leadership is not touched. The session's lease lives in etcd, and conch renews it with one
 * call at a time, so the next renewal goes out on the new client; calls and watches under way on
 * the old one end with it, and conch retries and re-watches as after any failed call, within the
 * lease's TTL. A bundle whose new material cannot make a TLS context leaves the client as it was,
 * with an error in the log; new material that etcd refuses fails the calls, and the office is lost
 * as in an outage, once the lease can no longer be renewed.
 */
final class EtcdSslReload {

  private static final Log logger = LogFactory.getLog(EtcdSslReload.class);

  private final String bundleName;

  private final boolean active;

  private EtcdSslReload(String bundleName, boolean active) {
    this.bundleName = bundleName;
    this.active = active;
  }

  /**
   * Rebuilds {@code client} on each update of bundle {@code bundleName} in {@code sslBundles}, if
   * it is conch's own client connected as {@code conch.etcd.*} say: an application's own client, or
   * connection details of a container, are the application's to reconnect.
   *
   * @throws org.springframework.boot.ssl.NoSuchSslBundleException if there is no such bundle
   */
  static EtcdSslReload register(
      SslBundles sslBundles,
      String bundleName,
      Client client,
      EtcdConnectionDetails connectionDetails) {
    if (!(client instanceof DeferredEtcdClient own)
        || !(connectionDetails instanceof PropertiesEtcdConnectionDetails)) {
      return new EtcdSslReload(bundleName, false);
    }
    EtcdSslReload reload = new EtcdSslReload(bundleName, true);
    sslBundles.addBundleUpdateHandler(bundleName, bundle -> reload.reloaded(own, bundle));
    return reload;
  }

  private void reloaded(DeferredEtcdClient client, SslBundle bundle) {
    try {
      client.rebuild(builder -> EtcdClients.withTls(builder, EtcdSslContexts.forClient(bundle)));
      logger.info(
          "SSL bundle '"
              + this.bundleName
              + "' was reloaded: conch's etcd client reconnects with it");
    } catch (RuntimeException ex) {
      logger.error(
          "SSL bundle '"
              + this.bundleName
              + "' was reloaded, but conch's etcd client could not be rebuilt with it; it keeps"
              + " the certificates it had",
          ex);
    }
  }

  @Override
  public String toString() {
    return "EtcdSslReload[" + this.bundleName + (this.active ? "]" : ", not conch's client]");
  }
}
