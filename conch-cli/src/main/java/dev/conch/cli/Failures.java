package dev.conch.cli;

import static java.util.Map.entry;

import dev.conch.Durations;
import dev.conch.EtcdUnavailableException;
import dev.conch.InvalidArgumentException;
import dev.conch.Setting;
import dev.conch.etcd.ConnectionFailures;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** The one {@code conch: ...} line on stderr for a failure, and its exit status. */
final class Failures {

  /**
   * The flag (or argument) behind each setting of the core: the one place where the core's names
   * meet the command line. A setting that no flag sets is named as the core names it.
   */
  static final Map<Setting<?>, String> FLAGS =
      Map.ofEntries(
          entry(Setting.OFFICE, "<office>"),
          entry(Setting.TTL, "--ttl"),
          entry(Setting.PREFIX, "--prefix"),
          entry(Setting.ENDPOINT, "--endpoints"),
          entry(Setting.ENDPOINTS, "--endpoints"),
          // The runner's election stops for kill-after (plus slack): its stop timeout is this flag.
          entry(Setting.STOP_TIMEOUT, "--kill-after"),
          entry(Setting.KILL_AFTER, "--kill-after"),
          entry(Setting.RESTART, "--restart"),
          entry(Setting.ON_ACQUIRE, "--on-acquire"),
          entry(Setting.ON_LOSE, "--on-lose"),
          // The runner raises its election's hook timeout to cover its own hooks.
          entry(Setting.HOOK_TIMEOUT, "--hook-timeout"),
          entry(Setting.RUNNER_HOOK_TIMEOUT, "--hook-timeout"),
          entry(Setting.WAIT, "--wait"),
          entry(Setting.PRIORITY, "--priority"),
          entry(Setting.MIN_TENURE, "--min-tenure"));

  private Failures() {}

  /**
   * Prints the failure and returns its status.
   *
   * @param endpoints the endpoints, as the exit-69 message names them
   * @param clientCert whether {@code --cert} was given (the hint of a refused certificate)
   * @param ttl {@code --ttl}, named beside a {@code --kill-after} that does not fit; may be null
   */
  static int report(Exception e, String endpoints, boolean clientCert, @Nullable Duration ttl) {
    PrintStream err = System.err;
    if (e instanceof UsageException) {
      err.println("conch: " + e.getMessage());
      return ExitStatus.USAGE;
    }
    if (e instanceof InvalidArgumentException invalid) {
      String flag = flag(invalid);
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

  /** The flag that set what {@code invalid} refuses, else the name it gives. */
  static String flag(InvalidArgumentException invalid) {
    return invalid.setting().map(FLAGS::get).orElse(invalid.name());
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
