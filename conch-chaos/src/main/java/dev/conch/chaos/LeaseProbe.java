package dev.conch.chaos;

import dev.conch.etcd.EtcdClients;
import dev.conch.test.EtcdCluster;
import io.etcd.jetcd.Client;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Measures etcd, not conch: a lease of its own renewed every {@value #EVERY_MILLIS} ms (each
 * attempt given {@value #ATTEMPT_MILLIS} ms) through a client of all the members, the time of each
 * answer kept. A supervisor that lost its term while etcd answered no renewal of anyone's for as
 * long as the renewal budget tolerates was right to stop: that loss is etcd's, not a needless one
 * ({@link SoakReport#etcdGap}).
 */
final class LeaseProbe implements AutoCloseable {

  private static final long EVERY_MILLIS = 100;
  private static final long ATTEMPT_MILLIS = 300;
  private static final long TTL_SECONDS = 60;

  private final Client client;
  private final Thread thread;
  private final List<Long> answers = new ArrayList<>();
  private volatile boolean closed;

  private LeaseProbe(EtcdCluster cluster) {
    this.client =
        EtcdClients.builder(EtcdClients.parseEndpoints(cluster.endpoints()), Duration.ofSeconds(1))
            .build();
    this.thread = new Thread(this::run, "soak-lease-probe");
    this.thread.setDaemon(true);
  }

  static LeaseProbe start(EtcdCluster cluster) {
    LeaseProbe probe = new LeaseProbe(cluster);
    probe.thread.start();
    return probe;
  }

  /** The epoch-nanosecond times at which etcd answered a renewal, in order. */
  synchronized List<Long> answers() {
    return List.copyOf(answers);
  }

  private void run() {
    long lease = 0;
    while (!closed) {
      try {
        if (lease == 0) {
          lease =
              client
                  .getLeaseClient()
                  .grant(TTL_SECONDS)
                  .get(ATTEMPT_MILLIS, TimeUnit.MILLISECONDS)
                  .getID();
        }
        client.getLeaseClient().keepAliveOnce(lease).get(ATTEMPT_MILLIS, TimeUnit.MILLISECONDS);
        synchronized (this) {
          answers.add(now());
        }
      } catch (InterruptedException e) {
        return;
      } catch (Exception e) {
        if (String.valueOf(e.getMessage()).contains("not found")) {
          lease = 0; // expired while etcd was away for a minute: a new one
        }
      }
      try {
        Thread.sleep(EVERY_MILLIS); // the probe's pace, not a wait for a state
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private static long now() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
  }

  @Override
  public void close() throws InterruptedException {
    closed = true;
    thread.interrupt();
    thread.join(TimeUnit.SECONDS.toMillis(5));
    client.close();
  }
}
