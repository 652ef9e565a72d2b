package dev.conch.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Collection;
import java.util.Objects;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;
import org.jspecify.annotations.Nullable;

/**
 * TLS for etcd's JSON gateway from the same PEM files as the gRPC client: {@code --cacert} (a CA
 * bundle; without it the JDK's trust store), {@code --cert} with {@code --key} (PKCS#8). The JDK
 * checks the server's name against the endpoint, as gRPC does.
 */
final class PemTls {

  private static final String[] KEY_ALGORITHMS = {"RSA", "EC", "Ed25519", "Ed448", "DSA"};

  private PemTls() {}

  /**
   * A socket factory for the files, or {@code null} when neither a CA nor a client certificate is
   * given (the JDK's default then, for an https:// endpoint).
   *
   * @throws UsageException naming the files and the formats accepted, when one cannot be read
   */
  static @Nullable SSLSocketFactory socketFactory(
      @Nullable Path cacert, @Nullable Path cert, @Nullable Path key) {
    if (cacert == null && cert == null) {
      return null;
    }
    try {
      TrustManagerFactory trust = null;
      if (cacert != null) {
        KeyStore cas = emptyStore();
        int i = 0;
        for (Certificate ca : certificates(cacert)) {
          cas.setCertificateEntry("ca-" + i++, ca);
        }
        trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(cas);
      }
      KeyManagerFactory keys = null;
      if (cert != null) {
        KeyStore own = emptyStore();
        own.setKeyEntry(
            "client",
            privateKey(Objects.requireNonNull(key, "--key")),
            new char[0],
            certificates(cert).toArray(new Certificate[0]));
        keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(own, new char[0]);
      }
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(
          keys == null ? null : keys.getKeyManagers(),
          trust == null ? null : trust.getTrustManagers(),
          null);
      return context.getSocketFactory();
    } catch (IOException | GeneralSecurityException | IllegalArgumentException e) {
      throw ConnectionOptions.invalidTlsFiles(e);
    }
  }

  private static KeyStore emptyStore() throws IOException, GeneralSecurityException {
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    return store;
  }

  private static Collection<? extends Certificate> certificates(Path file)
      throws IOException, GeneralSecurityException {
    try (InputStream in = Files.newInputStream(file)) {
      Collection<? extends Certificate> all =
          CertificateFactory.getInstance("X.509").generateCertificates(in);
      if (all.isEmpty()) {
        throw new GeneralSecurityException(file + " holds no PEM certificate");
      }
      return all;
    }
  }

  private static PrivateKey privateKey(Path file) throws IOException, GeneralSecurityException {
    String pem = Files.readString(file, StandardCharsets.US_ASCII);
    String begin = "-----BEGIN PRIVATE KEY-----";
    int from = pem.indexOf(begin);
    int to = pem.indexOf("-----END PRIVATE KEY-----");
    if (from < 0 || to < from) {
      throw new GeneralSecurityException(file + " holds no PEM PKCS#8 key (BEGIN PRIVATE KEY)");
    }
    byte[] der = Base64.getMimeDecoder().decode(pem.substring(from + begin.length(), to));
    PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
    for (String algorithm : KEY_ALGORITHMS) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(spec);
      } catch (GeneralSecurityException e) {
        // Not this algorithm: the next.
      }
    }
    throw new GeneralSecurityException(file + ": a key of no known algorithm (RSA, EC, EdDSA)");
  }
}
