package dev.conch.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionEvent;
import dev.conch.ElectionOptions;
import dev.conch.test.EtcdExtension;
import io.etcd.jetcd.Client;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A process with many offices, on a real etcd: they all come to lead, none loses on the way, and
 * the process needs neither a thread nor a watch per office. Sending every campaign at once once
 * made etcd answer so late that the lease's renewals failed and each term ended before it began.
 */
@Timeout(180)
class EtcdManyOfficesTest {

  private static final int OFFICES = 1000;
  private static final String WATCHERS = "etcd_debugging_mvcc_watcher_total";

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private final Etcds etcds = new Etcds();

  @AfterEach
  void close() {
    etcds.close();
  }

  @Test
  void aThousandOfficesOfOneSessionAllLeadWithoutALossOnAHandfulOfThreads() throws Exception {
    int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
    Set<Thread> before = Thread.getAllStackTraces().keySet();
    double watchersBefore = etcd.cluster().member(0).metric(WATCHERS);
    Client client = etcds.client(etcd.cluster());
    EtcdSession session = etcds.session(client, SessionOptions.defaults());
    Queue<ElectionEvent> losses = new ConcurrentLinkedQueue<>();
    List<Election> elections = new ArrayList<>();
    for (int i = 0; i < OFFICES; i++) {
      Election election = session.election(ElectionOptions.forOffice("many-" + i));
      election.addListener(
          event -> {
            if (event instanceof ElectionEvent.Lost) {
              losses.add(event);
            }
          });
      election.start();
      elections.add(election);
    }

    await()
        .atMost(Duration.ofSeconds(120))
        .until(() -> elections.stream().allMatch(Election::isLeader));

    assertThat(losses).isEmpty();
    // Shared threads: the loops, a timer, events, the lease keeper and jetcd's own, whatever
    // the number of offices (a thread per office was 1000 more).
    int added = ManagementFactory.getThreadMXBean().getThreadCount() - threadsBefore;
    assertThat(added).isLessThan(OFFICES / 10);
    // jetcd starts the calls, and gRPC delivers their answers, on the threads all of conch's
    // clients share, not on cached pools that grow with the burst of a thousand campaigns (jetcd's
    // own pool: 11 threads; gRPC's: 22). A few more may be lent for a while where a pause (a GC,
    // a busy machine) held answers up past 100 ms.
    int shared = Math.max(2, Runtime.getRuntime().availableProcessors());
    List<String> started =
        Thread.getAllStackTraces().keySet().stream()
            .filter(thread -> !before.contains(thread))
            .map(Thread::getName)
            .toList();
    assertThat(started).noneMatch(name -> name.startsWith("jetcd-"));
    assertThat(
            started.stream()
                .filter(
                    name ->
                        name.startsWith("grpc-default-executor-")
                            || name.startsWith("conch-etcd-")))
        .hasSizeLessThanOrEqualTo(2 * shared + 3);
    // One watch for the session, not one per office (etcd's own count).
    assertThat(etcd.cluster().member(0).metric(WATCHERS) - watchersBefore).isEqualTo(1);
  }
}
