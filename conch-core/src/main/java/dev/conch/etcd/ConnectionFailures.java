package dev.conch.etcd;

import java.net.ConnectException;
import java.net.UnknownHostException;
import java.nio.channels.UnresolvedAddressException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import javax.net.ssl.SSLException;

/**
 * Names why a client could not talk to etcd, from the exception it saw: a TLS mistake (untrusted
 * server certificate, client certificate refused or missing, host name not in the certificate), a
 * refused login, a refused connection or a name that does not resolve. Without this, every one of
 * them reads like an outage ("etcd did not answer").
 *
 * <p>It reads the whole cause chain, since gRPC wraps the socket's error ({@code UNAVAILABLE: io
 * exception}) and Netty wraps the TLS engine's; and it matches gRPC's classes by name, so that a
 * client without gRPC on its class path can use it too.
 */
public final class ConnectionFailures {

  /** What went wrong, as far as the client can tell. */
  public enum Kind {
    /** The server's certificate does not chain to a trusted CA (a wrong or missing CA bundle). */
    UNTRUSTED_SERVER(true),
    /** The server refused the client's certificate, or required one that was not sent. */
    CLIENT_CERTIFICATE_REFUSED(true),
    /** The server's certificate does not name the host (or IP address) that was dialled. */
    HOSTNAME_MISMATCH(true),
    /** Another TLS failure: protocol or cipher mismatch, a plain-text server, a broken key. */
    TLS(true),
    /** etcd refused the user name and password, or the request carried none. */
    AUTHENTICATION_FAILED(true),
    /** Nothing listens at the address (or a firewall rejects it). */
    CONNECTION_REFUSED(false),
    /** The host name does not resolve. */
    UNKNOWN_HOST(true),
    /** None of the above: an outage, a timeout, a reset connection. */
    OTHER(false);

    private final boolean definitive;

    Kind(boolean definitive) {
      this.definitive = definitive;
    }

    /**
     * Whether asking again cannot help: a configuration mistake rather than an etcd that is still
     * starting or briefly away.
     */
    public boolean definitive() {
      return definitive;
    }
  }

  private static final Pattern AUTH =
      Pattern.compile(
          "authentication failed|invalid user ID or password|user name is empty"
              + "|invalid auth token|permission denied|UNAUTHENTICATED",
          Pattern.CASE_INSENSITIVE);

  private static final Pattern HOSTNAME =
      Pattern.compile("No subject alternative|No name matching|hostname", Pattern.CASE_INSENSITIVE);

  private static final Pattern CLIENT_CERT =
      Pattern.compile("bad_certificate|certificate_required|unknown_ca|certificate_unknown");

  private ConnectionFailures() {}

  /** What kind of failure {@code error} (or any of its causes) is. */
  public static Kind classify(Throwable error) {
    List<Throwable> chain = chain(error);
    for (Throwable t : chain) {
      if ((t instanceof SSLException || t instanceof CertificateException)
          && matches(HOSTNAME, t)) {
        return Kind.HOSTNAME_MISMATCH;
      }
    }
    for (Throwable t : chain) {
      if (t instanceof CertPathBuilderException
          || t instanceof CertPathValidatorException
          || (t instanceof SSLException && message(t).contains("PKIX path"))) {
        return Kind.UNTRUSTED_SERVER;
      }
    }
    for (Throwable t : chain) {
      if (t instanceof SSLException && matches(CLIENT_CERT, t)) {
        return Kind.CLIENT_CERTIFICATE_REFUSED;
      }
    }
    for (Throwable t : chain) {
      if (t instanceof SSLException) {
        return Kind.TLS;
      }
    }
    for (Throwable t : chain) {
      if (matches(AUTH, t)) {
        return Kind.AUTHENTICATION_FAILED;
      }
    }
    for (Throwable t : chain) {
      if (t instanceof UnknownHostException
          || t instanceof UnresolvedAddressException
          || message(t).contains("Unable to resolve host")
          || message(t).contains("unresolved address")) {
        return Kind.UNKNOWN_HOST;
      }
    }
    for (Throwable t : chain) {
      if (t instanceof ConnectException
          || message(t).toLowerCase(Locale.ROOT).contains("connection refused")) {
        return Kind.CONNECTION_REFUSED;
      }
    }
    return Kind.OTHER;
  }

  /**
   * One line naming the cause, e.g. {@code TLS handshake failed: the server's certificate is not
   * signed by a trusted CA (PKIX path building failed: ...)}; for an unknown kind, the most
   * specific message in the chain.
   */
  public static String describe(Throwable error) {
    List<Throwable> chain = chain(error);
    Kind kind = classify(error);
    return switch (kind) {
      case UNTRUSTED_SERVER ->
          "TLS handshake failed: the server's certificate is not signed by a trusted CA ("
              + innermost(chain, SSLException.class)
              + ")";
      case CLIENT_CERTIFICATE_REFUSED ->
          "TLS handshake failed: etcd refused the client certificate or requires one ("
              + innermost(chain, SSLException.class)
              + ")";
      case HOSTNAME_MISMATCH ->
          "TLS handshake failed: the server's certificate does not name the host dialled ("
              + innermost(chain, SSLException.class)
              + ")";
      case TLS -> "TLS handshake failed: " + innermost(chain, SSLException.class);
      case AUTHENTICATION_FAILED -> "authentication failed: " + authMessage(chain);
      case CONNECTION_REFUSED -> "connection refused";
      case UNKNOWN_HOST -> "no such host" + hostOf(chain);
      case OTHER -> innermost(chain, Throwable.class);
    };
  }

  private static String authMessage(List<Throwable> chain) {
    for (int i = chain.size() - 1; i >= 0; i--) {
      if (matches(AUTH, chain.get(i))) {
        return strip(message(chain.get(i)));
      }
    }
    return "";
  }

  private static String hostOf(List<Throwable> chain) {
    for (Throwable t : chain) {
      if (t instanceof UnknownHostException && !message(t).isBlank()) {
        return ": " + message(t);
      }
    }
    return "";
  }

  /** The deepest message of the chain among throwables of {@code type}, gRPC's prefix dropped. */
  private static String innermost(List<Throwable> chain, Class<? extends Throwable> type) {
    for (int i = chain.size() - 1; i >= 0; i--) {
      Throwable t = chain.get(i);
      if (type.isInstance(t) && !message(t).isBlank()) {
        return strip(message(t));
      }
    }
    for (int i = chain.size() - 1; i >= 0; i--) {
      if (!message(chain.get(i)).isBlank()) {
        return strip(message(chain.get(i)));
      }
    }
    Throwable last = chain.get(chain.size() - 1);
    return last.getClass().getSimpleName();
  }

  /** One line: the first line of a message (Netty appends its pipeline on the next). */
  private static String strip(String message) {
    int newline = message.indexOf('\n');
    String line = (newline < 0 ? message : message.substring(0, newline)).trim();
    // A wrapped exception's message starts with the wrapped class name; the class is noise.
    return line.replaceFirst("^[a-zA-Z_$][\\w$]*(\\.[a-zA-Z_$][\\w$]*)+(Exception|Error): ", "")
        .replaceFirst("^[A-Z][A-Z_]+: ", "");
  }

  private static boolean matches(Pattern pattern, Throwable t) {
    return pattern.matcher(message(t)).find();
  }

  private static String message(Throwable t) {
    String message = t.getMessage();
    return message == null ? "" : message;
  }

  private static List<Throwable> chain(Throwable error) {
    List<Throwable> chain = new ArrayList<>();
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable t = error; t != null && seen.put(t, Boolean.TRUE) == null; t = t.getCause()) {
      chain.add(t);
    }
    return chain;
  }
}
