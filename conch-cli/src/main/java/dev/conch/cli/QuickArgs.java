package dev.conch.cli;

import dev.conch.Durations;
import dev.conch.Setting;
import dev.conch.etcd.EtcdClients;
import dev.conch.etcd.SessionOptions;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Reads the arguments of a read form ({@code conch elect <office>
 * --who|--assert|--watch|--history|--why ...}) without picocli, whose classes (compiled for Java 5)
 * cannot be kept in the class-data archive and cost more to load than the read itself. It takes
 * only what it is sure of: any argument it does not know, any repeated or odd value, any value that
 * would fail a check makes it answer {@code null}, and the caller hands the whole command line to
 * picocli, which then gives the usual help or usage error. What it accepts, picocli reads the same
 * way (a test compares the two).
 */
final class QuickArgs {

  private static final Set<String> SWITCHES =
      Set.of("--who", "--assert", "--watch", "--history", "--why", "--json", "--quiet");

  private static final Set<String> VALUED =
      Set.of(
          "--min-rev",
          "-n",
          "--endpoints",
          "--ttl",
          "--prefix",
          "--user",
          "--password",
          "--cacert",
          "--cert",
          "--key");

  /** A revision both picocli and this read alike: no sign, no leading zero, no hex. */
  private static final Pattern REVISION = Pattern.compile("0|[1-9][0-9]{0,17}");

  /** A number of terms both read alike (its range is checked after). */
  private static final Pattern TERMS = Pattern.compile("[1-9][0-9]{0,3}");

  private QuickArgs() {}

  /** The read form these arguments ask for, every value checked; {@code null}: ask picocli. */
  static @Nullable ReadRequest parse(String[] args) {
    if (args.length < 3 || !args[0].equals("elect")) {
      return null;
    }
    Map<String, String> given = new HashMap<>();
    String office = null;
    for (int i = 1; i < args.length; i++) {
      String arg = args[i];
      if (!arg.startsWith("-")) {
        if (office != null) {
          return null;
        }
        office = arg;
        continue;
      }
      String name = arg.equals("-q") ? "--quiet" : arg;
      String value = null;
      int eq = arg.indexOf('=');
      if (arg.startsWith("--") && eq > 2) {
        name = arg.substring(0, eq);
        value = arg.substring(eq + 1);
      }
      if (SWITCHES.contains(name) && value == null) {
        value = "";
      } else if (VALUED.contains(name)) {
        if (value == null) {
          if (++i == args.length || args[i].startsWith("-")) {
            return null;
          }
          value = args[i];
        }
      } else {
        return null;
      }
      if (given.put(name, value) != null) {
        return null;
      }
    }
    try {
      return request(office, given);
    } catch (RuntimeException e) {
      // A bad value: picocli and the checks behind it say which, in their words.
      return null;
    }
  }

  private static @Nullable ReadRequest request(@Nullable String office, Map<String, String> given) {
    boolean who = given.containsKey("--who");
    boolean watch = given.containsKey("--watch");
    boolean assertHeld = given.containsKey("--assert");
    boolean history = given.containsKey("--history");
    boolean why = given.containsKey("--why");
    String minRev = given.get("--min-rev");
    String terms = given.get("-n");
    if (office == null
        || (who ? 1 : 0)
                + (watch ? 1 : 0)
                + (assertHeld ? 1 : 0)
                + (history ? 1 : 0)
                + (why ? 1 : 0)
            != 1
        || (minRev != null && !(assertHeld && REVISION.matcher(minRev).matches()))
        || (terms != null
            && !(history
                && TERMS.matcher(terms).matches()
                && ReadRequest.validTerms(Long.parseLong(terms))))) {
      return null;
    }
    Setting.OFFICE.require(office);
    String endpoints = ConnectionOptions.endpointsText(given.get("--endpoints"));
    List<URI> uris = EtcdClients.parseEndpoints(endpoints);
    Duration ttl = Durations.parse("duration", given.getOrDefault("--ttl", "15s"));
    Setting.TTL.require(ttl);
    SessionOptions options =
        SessionOptions.defaults()
            .withPrefix(given.getOrDefault("--prefix", SessionOptions.DEFAULT_PREFIX))
            .withTtl(ttl)
            .withTimeout(ConnectionOptions.CALL_TIMEOUT);
    String user = given.get("--user");
    String password = given.get("--password");
    if (password != null && (user == null || user.isEmpty())) {
      return null;
    }
    Path cacert = readable(given.get("--cacert"));
    Path cert = readable(given.get("--cert"));
    Path key = readable(given.get("--key"));
    if ((cert == null) != (key == null)) {
      return null;
    }
    ReadRequest.Form form =
        who
            ? ReadRequest.Form.WHO
            : watch
                ? ReadRequest.Form.WATCH
                : history
                    ? ReadRequest.Form.HISTORY
                    : why ? ReadRequest.Form.WHY : ReadRequest.Form.ASSERT;
    return new ReadRequest(
        form,
        office,
        options,
        given.containsKey("--json"),
        given.containsKey("--quiet"),
        minRev == null ? 0 : Long.parseLong(minRev),
        history ? terms == null ? ReadRequest.DEFAULT_TERMS : Integer.parseInt(terms) : why ? 2 : 0,
        uris,
        user,
        ConnectionOptions.password(password),
        cacert,
        cert,
        key);
  }

  private static @Nullable Path readable(@Nullable String file) {
    if (file == null) {
      return null;
    }
    Path path = Path.of(file);
    if (!(Files.isRegularFile(path) && Files.isReadable(path))) {
      throw new IllegalArgumentException(file);
    }
    return path;
  }
}
