package dev.conch.cli;

import dev.conch.Setting;
import dev.conch.etcd.SessionOptions;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * A read form ({@code --who}, {@code --assert}, {@code --watch}, {@code --history}, {@code --why})
 * with every value checked: what {@link ReadForms} needs, whether it came from picocli or from
 * {@link QuickArgs}.
 *
 * @param form which form
 * @param office the office
 * @param session the prefix of elections and the bound of each call
 * @param json whether to print JSON
 * @param quiet whether to log only errors
 * @param minRev with {@code --assert}: the lowest fencing token that counts
 * @param terms with {@code --history}: how many of the last terms to show ({@code -n})
 * @param endpoints the etcd endpoints
 * @param user the etcd user, or {@code null}
 * @param password the password (flag or {@code $CONCH_PASSWORD}), or {@code null}
 * @param cacert {@code --cacert}, or {@code null}
 * @param cert {@code --cert}, or {@code null}
 * @param key {@code --key}, or {@code null}
 */
record ReadRequest(
    Form form,
    String office,
    SessionOptions session,
    boolean json,
    boolean quiet,
    long minRev,
    int terms,
    List<URI> endpoints,
    @Nullable String user,
    @Nullable String password,
    @Nullable Path cacert,
    @Nullable Path cert,
    @Nullable Path key) {

  /** The read forms. */
  enum Form {
    WHO,
    ASSERT,
    WATCH,
    HISTORY,
    WHY
  }

  /** How many terms {@code --history} shows without {@code -n}. */
  static final int DEFAULT_TERMS = 10;

  /** Whether {@code n} is a number of terms {@code -n} takes: 1 to the most a history keeps. */
  static boolean validTerms(long n) {
    return n >= 1 && n <= Setting.MAX_HISTORY_TERMS;
  }

  /** The endpoints as the exit-69 message names them. */
  String describeEndpoints() {
    return endpoints.stream().map(URI::toString).collect(Collectors.joining(","));
  }
}
