package dev.conch.cli;

import dev.conch.Durations;
import dev.conch.EtcdUnavailableException;
import dev.conch.InvalidArgumentException;
import dev.conch.etcd.ConnectionFailures;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Map;

/** The one {@code conch: ...} line on stderr for a failure, and its exit status. */
final class Failures {

  /** How the core names a setting in {@link InvalidArgumentException}, and the flag behind it. */
  private static final Map<String, String> FLAGS =
      Map.of(
          "office", "<office>",
          "ttl", "--ttl",
          "prefix", "--prefix",
          "endpoint", "--endpoints",
          "endpoints", "--endpoints",
          "stop-timeout", "--kill-after",
          "kill-after", "--kill-after",
          "hook-timeout", "--hook-timeout");

  private Failures() {}

  /**
   * Prints the failure and returns its status.
   *
   * @param endpoints the endpoints, as the exit-69 message names them
   * @param clientCert whether {@code --cert} was given (the hint of a refused certificate)
   * @param ttl {@code --ttl}, named beside a {@code --kill-after} that does not fit; may be null
   */
  static int report(Exception e, String endpoints, boolean clientCert, Duration ttl) {
    PrintStream err = System.err;
    if (e instanceof UsageException) {
      err.println("conch: " + e.getMessage());
      return ExitStatus.USAGE;
    }
    if (e instanceof InvalidArgumentException invalid) {
      String flag = FLAGS.getOrDefault(invalid.name(), invalid.name());
      String with =
          flag.equals("--kill-after") && ttl != null ? " with --ttl " + Durations.format(ttl) : "";
      err.println(
          "conch: invalid "
              + flag
              + " '"
              + invalid.value()
              + "'"
              + with
              + ": "
              + invalid.accepted());
      return ExitStatus.USAGE;
    }
    if (e instanceof EtcdUnavailableException) {
      err.println(
          "conch: etcd unavailable at " + endpoints + ": " + e.getMessage() + hint(e, clientCert));
      return ExitStatus.UNAVAILABLE;
    }
    if (e instanceof InterruptedException) {
      return ExitStatus.INTERRUPTED;
    }
    err.println("conch: " + e.getMessage());
    if (System.getenv("CONCH_LOG") != null) {
      e.printStackTrace(err);
    }
    return ExitStatus.LOST;
  }

  /** Which flag to look at, for the causes a flag can fix. */
  private static String hint(Exception e, boolean clientCert) {
    return switch (ConnectionFailures.classify(e)) {
      case AUTHENTICATION_FAILED -> " (check --user, and --password or $CONCH_PASSWORD)";
      case UNTRUSTED_SERVER -> " (check --cacert: the CA that signed etcd's certificate)";
      case CLIENT_CERTIFICATE_REFUSED ->
          clientCert
              ? " (check --cert and --key: etcd's --trusted-ca-file must have signed them)"
              : " (etcd requires a client certificate: give --cert and --key)";
      case HOSTNAME_MISMATCH ->
          " (use a host name or IP address in --endpoints that etcd's certificate names)";
      default -> "";
    };
  }
}
