package dev.conch.chaos;

import dev.conch.Hosts;
import dev.conch.TermRecord;
import dev.conch.etcd.EtcdClients;
import dev.conch.etcd.SessionOptions;
import dev.conch.etcd.TermHistory;
import dev.conch.test.EtcdCluster;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * The soak office's history as etcd holds it at the end of a run (DESIGN.md, "The flight
 * recorder"), and what the soak knows of who could have written it: read once, after every
 * supervisor stopped, for {@link HistoryCheck}.
 *
 * @param terms every record under the office's history prefix, by token (the keys are zero-padded
 *     tokens, so etcd's key order is token order)
 * @param unreadable the stored values that are not term records of the office
 * @param error why the history could not be read, or {@code null}
 * @param waited how long the read waited for every recorded term to have an end
 * @param settled whether every recorded term had an end when it was read (else the wait's deadline
 *     passed: the open terms stay open for good, and the check says so)
 * @param supervisors every supervisor process the soak started, the holders the records must name
 * @param host the host name the supervisors give as theirs (this machine's)
 * @param handOvers whether the supervisors hand the office over on their own ({@code
 *     --priorities}), so that any term may end transferred
 */
record OfficeHistory(
    List<TermRecord> terms,
    List<String> unreadable,
    @Nullable String error,
    Duration waited,
    boolean settled,
    List<SoakReport.Supervisor> supervisors,
    String host,
    boolean handOvers) {

  /** The soak's office. */
  static final String OFFICE = "chaos";

  /**
   * How long {@link #await} waits for the terms' ends: a supervisor writes its term's end in the
   * transaction that releases its key before it exits, so this is only a bound for a write that
   * went out through a proxy just closed (and for a defect, which then shows as an open term).
   */
  static final Duration SETTLE = Duration.ofSeconds(10);

  /** How long one read may take. */
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(10);

  OfficeHistory {
    terms = List.copyOf(terms);
    unreadable = List.copyOf(unreadable);
    supervisors = List.copyOf(supervisors);
  }

  /**
   * Reads the office's history from {@code cluster} once every recorded term has an end, or once
   * {@code timeout} passed (then as it is). The supervisors must have stopped: nothing else ends a
   * term then.
   */
  static OfficeHistory await(
      EtcdCluster cluster,
      Duration timeout,
      List<SoakReport.Supervisor> supervisors,
      boolean handOvers)
      throws InterruptedException {
    String prefix = TermHistory.prefix(SessionOptions.defaults().metaRoot(), OFFICE);
    String host = Hosts.localName();
    long start = System.nanoTime();
    long deadline = start + timeout.toNanos();
    try (Client client =
        EtcdClients.builder(EtcdClients.parseEndpoints(cluster.endpoints()), READ_TIMEOUT)
            .build()) {
      while (true) {
        List<TermRecord> terms = new ArrayList<>();
        List<String> unreadable = new ArrayList<>();
        String error = null;
        try {
          for (String value : values(client, prefix)) {
            Optional<TermRecord> term = TermRecord.parse(OFFICE, value);
            if (term.isPresent()) {
              terms.add(term.get());
            } else {
              unreadable.add(value);
            }
          }
        } catch (ExecutionException | TimeoutException e) {
          error = "reading " + prefix + " failed: " + e;
        }
        boolean settled = error == null && terms.stream().noneMatch(TermRecord::isOpen);
        Duration waited = Duration.ofNanos(System.nanoTime() - start);
        if (settled || System.nanoTime() > deadline) {
          return new OfficeHistory(
              terms, unreadable, error, waited, settled, supervisors, host, handOvers);
        }
        Thread.sleep(200); // polling etcd with a deadline
      }
    }
  }

  /** Every value under {@code prefix}, by key. */
  private static List<String> values(Client client, String prefix)
      throws ExecutionException, TimeoutException, InterruptedException {
    ByteSequence key = ByteSequence.from(prefix, StandardCharsets.UTF_8);
    GetOption all =
        GetOption.builder()
            .isPrefix(true)
            .withSortField(GetOption.SortTarget.KEY)
            .withSortOrder(GetOption.SortOrder.ASCEND)
            .build();
    List<String> values = new ArrayList<>();
    for (KeyValue kv :
        client
            .getKVClient()
            .get(key, all)
            .get(READ_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
            .getKvs()) {
      values.add(kv.getValue().toString(StandardCharsets.UTF_8));
    }
    return values;
  }
}
