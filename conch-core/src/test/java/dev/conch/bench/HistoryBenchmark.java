package dev.conch.bench;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.State;
import dev.conch.TermRecord;
import dev.conch.etcd.EtcdClients;
import dev.conch.etcd.EtcdSession;
import dev.conch.etcd.SessionOptions;
import dev.conch.etcd.TermHistory;
import dev.conch.test.EtcdCluster;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;

/**
 * What the flight recorder costs, against a real single-member etcd on loopback: the same run of
 * terms (two candidates in two sessions hand the office back and forth by resigning, T times) with
 * the history on and off; etcd requests per term (etcd's own {@code grpc_server_handled_total},
 * every method) and bytes per term in etcd (key and value of each record).
 *
 * <pre>
 * mvn -q -pl conch-core test-compile exec:java -Dexec.classpathScope=test \
 *     -Dexec.mainClass=dev.conch.bench.HistoryBenchmark [-Dexec.args="200"]
 * </pre>
 *
 * Figures go to docs/benchmarks.md; they are measurements, never assertions of a test.
 */
public final class HistoryBenchmark {

  private static final Duration WAIT = Duration.ofSeconds(20);

  private HistoryBenchmark() {}

  public static void main(String[] args) throws Exception {
    int terms = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    try (EtcdCluster cluster = EtcdCluster.start(1)) {
      // Warm up (class loading, the clients' first connections), then measure off, on, off, on.
      run(cluster, "warm", 20, 100);
      for (int round = 0; round < 2; round++) {
        report("off", terms, run(cluster, "off-" + round, terms, 0), null);
        String office = "on-" + round;
        double on = run(cluster, office, terms, 100);
        report("on", terms, on, bytesPerTerm(cluster, office));
      }
    }
    System.exit(0);
  }

  /** Requests etcd handled while {@code terms} terms of {@code office} began and ended. */
  private static double run(EtcdCluster cluster, String office, int terms, int historyTerms)
      throws Exception {
    SessionOptions options = SessionOptions.defaults().withHistoryTerms(historyTerms);
    try (Client one = client(cluster);
        Client two = client(cluster);
        EtcdSession first = EtcdSession.open(one, options);
        EtcdSession second = EtcdSession.open(two, options)) {
      Election a = first.election(ElectionOptions.builder(office).candidateId("a").build());
      Election b = second.election(ElectionOptions.builder(office).candidateId("b").build());
      a.start();
      if (!a.awaitLeadership(WAIT)) {
        throw new IllegalStateException("a did not lead");
      }
      b.start();
      Awaitility.await().atMost(WAIT).until(() -> b.state() == State.FOLLOWING);
      double before = requests(cluster);
      Election leader = a;
      Election next = b;
      for (int i = 0; i < terms; i++) {
        leader.resign();
        if (!next.awaitLeadership(WAIT)) {
          throw new IllegalStateException("no hand-over at term " + i);
        }
        leader.start(); // queues again at the back
        Election was = leader;
        leader = next;
        next = was;
      }
      // resign() returns once its release was answered: every term's end is counted.
      double after = requests(cluster);
      a.close();
      b.close();
      return after - before;
    }
  }

  private static void report(String mode, int terms, double requests, Double bytes) {
    System.out.printf(
        "history %-3s  %d terms: %.2f etcd requests per term%s%n",
        mode,
        terms,
        requests / terms,
        bytes == null ? "" : String.format(", %.0f bytes per term in etcd", bytes));
  }

  private static double bytesPerTerm(EtcdCluster cluster, String office) throws Exception {
    try (Client client = client(cluster)) {
      String prefix = TermHistory.prefix(SessionOptions.defaults().metaRoot(), office);
      List<KeyValue> kvs =
          client
              .getKVClient()
              .get(
                  ByteSequence.from(prefix, StandardCharsets.UTF_8),
                  GetOption.builder().isPrefix(true).build())
              .get(10, TimeUnit.SECONDS)
              .getKvs();
      long bytes = 0;
      int closedBySuccessor = 0;
      for (KeyValue kv : kvs) {
        bytes += kv.getKey().size() + kv.getValue().size();
        TermRecord term =
            TermRecord.parse(office, kv.getValue().toString(StandardCharsets.UTF_8)).orElseThrow();
        if (!term.isOpen() && !term.holder().id().equals(term.recordedBy())) {
          closedBySuccessor++; // a successor's closure costs two requests: counted above
        }
      }
      System.out.printf(
          "  %d records kept, %d closed by a successor%n", kvs.size(), closedBySuccessor);
      return kvs.isEmpty() ? 0 : (double) bytes / kvs.size();
    }
  }

  /** The gRPC requests etcd has handled so far, summed over every method. */
  private static double requests(EtcdCluster cluster) {
    return cluster.member(0).metric("grpc_server_handled_total");
  }

  private static Client client(EtcdCluster cluster) {
    return EtcdClients.builder(
            EtcdClients.parseEndpoints(cluster.endpoints()), Duration.ofSeconds(5))
        .build();
  }
}
