package dev.conch.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.etcd.ConnectionFailures.Kind;
import io.grpc.Status;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.channels.UnresolvedAddressException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertificateException;
import java.util.concurrent.ExecutionException;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.junit.jupiter.api.Test;

/**
 * The chains below are those jetcd (gRPC over Netty) and the JDK's HTTP client were seen to throw
 * against a real etcd, rebuilt by hand so that each kind is tested without its setting.
 */
class ConnectionFailuresTest {

  /** What gRPC makes of a connection error: {@code UNAVAILABLE: io exception} with the cause. */
  private static Throwable grpc(String description, Throwable cause) {
    return new ExecutionException(
        Status.UNAVAILABLE.withDescription(description).withCause(cause).asRuntimeException());
  }

  private static SSLHandshakeException handshake(String message, Throwable cause) {
    SSLHandshakeException e = new SSLHandshakeException(message);
    e.initCause(cause);
    return e;
  }

  @Test
  void aServerCertificateFromAnotherCaIsUntrusted() {
    Throwable error =
        grpc(
            "io exception\nChannel Pipeline: [SslHandler#0]",
            handshake(
                "PKIX path building failed: unable to find valid certification path to requested"
                    + " target",
                new CertPathBuilderException(
                    "unable to find valid certification path to requested target")));

    assertThat(ConnectionFailures.classify(error)).isEqualTo(Kind.UNTRUSTED_SERVER);
    assertThat(ConnectionFailures.describe(error))
        .startsWith("TLS handshake failed: the server's certificate is not signed by a trusted CA")
        .contains("PKIX path building failed")
        .doesNotContain("\n", "Channel Pipeline");
  }

  @Test
  void aBadCertificateAlertIsARefusedOrMissingClientCertificate() {
    Throwable grpcTls12 =
        grpc(
            "ssl exception",
            new IOException(
                "javax.net.ssl.SSLHandshakeException: Received fatal alert: bad_certificate",
                new SSLHandshakeException("Received fatal alert: bad_certificate")));
    Throwable tls13 = new SSLException("Received fatal alert: certificate_required");

    assertThat(ConnectionFailures.classify(grpcTls12)).isEqualTo(Kind.CLIENT_CERTIFICATE_REFUSED);
    assertThat(ConnectionFailures.classify(tls13)).isEqualTo(Kind.CLIENT_CERTIFICATE_REFUSED);
    assertThat(ConnectionFailures.describe(grpcTls12))
        .isEqualTo(
            "TLS handshake failed: etcd refused the client certificate or requires one"
                + " (Received fatal alert: bad_certificate)");
  }

  @Test
  void aCertificateWithoutTheDialledNameIsAHostnameMismatch() {
    Throwable dns =
        grpc(
            "io exception",
            handshake(
                "No name matching localhost found",
                new CertificateException("No name matching localhost found")));
    Throwable ip =
        new SSLPeerUnverifiedException("No subject alternative names matching IP address 10.0.0.1");

    assertThat(ConnectionFailures.classify(dns)).isEqualTo(Kind.HOSTNAME_MISMATCH);
    assertThat(ConnectionFailures.classify(ip)).isEqualTo(Kind.HOSTNAME_MISMATCH);
    assertThat(ConnectionFailures.describe(dns))
        .isEqualTo(
            "TLS handshake failed: the server's certificate does not name the host dialled"
                + " (No name matching localhost found)");
  }

  @Test
  void otherTlsFailuresAreNamedAsTls() {
    Throwable plainServer = new SSLException("Unsupported or unrecognized SSL message");

    assertThat(ConnectionFailures.classify(plainServer)).isEqualTo(Kind.TLS);
    assertThat(ConnectionFailures.describe(plainServer))
        .isEqualTo("TLS handshake failed: Unsupported or unrecognized SSL message");
  }

  @Test
  void etcdRefusingTheLoginIsAnAuthenticationFailure() {
    Throwable grpcAuth =
        new ExecutionException(
            Status.INVALID_ARGUMENT
                .withDescription("etcdserver: authentication failed, invalid user ID or password")
                .asRuntimeException());
    Throwable noUser = new IOException("etcdserver: user name is empty");

    assertThat(ConnectionFailures.classify(grpcAuth)).isEqualTo(Kind.AUTHENTICATION_FAILED);
    assertThat(ConnectionFailures.classify(noUser)).isEqualTo(Kind.AUTHENTICATION_FAILED);
    assertThat(ConnectionFailures.describe(grpcAuth))
        .isEqualTo(
            "authentication failed: etcdserver: authentication failed, invalid user ID or"
                + " password");
  }

  @Test
  void aClosedPortIsARefusedConnection() {
    ConnectException netty = new ConnectException("Connection refused: /127.0.0.1:1");
    netty.initCause(new ConnectException("Connection refused"));

    assertThat(ConnectionFailures.classify(grpc("io exception", netty)))
        .isEqualTo(Kind.CONNECTION_REFUSED);
    assertThat(ConnectionFailures.describe(new ConnectException("Connection refused")))
        .isEqualTo("connection refused");
  }

  @Test
  void aNameThatDoesNotResolveIsAnUnknownHost() {
    Throwable grpcUnresolved = grpc("unresolved address", new UnresolvedAddressException());
    Throwable jdk = new UnknownHostException("nosuchhost.invalid");

    assertThat(ConnectionFailures.classify(grpcUnresolved)).isEqualTo(Kind.UNKNOWN_HOST);
    assertThat(ConnectionFailures.describe(grpcUnresolved)).isEqualTo("no such host");
    assertThat(ConnectionFailures.describe(jdk)).isEqualTo("no such host: nosuchhost.invalid");
  }

  @Test
  void anythingElseKeepsItsMostSpecificMessage() {
    Throwable timeout = grpc("io exception", new SocketTimeoutException("Read timed out"));
    Throwable silent = new ExecutionException(new IllegalStateException());

    assertThat(ConnectionFailures.classify(timeout)).isEqualTo(Kind.OTHER);
    assertThat(ConnectionFailures.describe(timeout)).isEqualTo("Read timed out");
    assertThat(ConnectionFailures.describe(silent)).isEqualTo("java.lang.IllegalStateException");
  }

  @Test
  void onlyAnOutageIsWorthAskingAgain() {
    assertThat(Kind.CONNECTION_REFUSED.definitive()).isFalse();
    assertThat(Kind.OTHER.definitive()).isFalse();
    assertThat(Kind.UNTRUSTED_SERVER.definitive()).isTrue();
    assertThat(Kind.AUTHENTICATION_FAILED.definitive()).isTrue();
  }
}
