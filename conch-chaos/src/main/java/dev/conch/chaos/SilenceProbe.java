package dev.conch.chaos;

import dev.conch.etcd.EtcdClients;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * etcd's own answers through one member, for {@link LeaderChangeSilence}: a renewal of a lease of
 * its own and a linearizable read, each sent every {@value #EVERY_MILLIS} ms without waiting for
 * the one before.
 */
final class SilenceProbe implements AutoCloseable {

  /** The pace of the probe's requests. */
  static final long EVERY_MILLIS = 25;

  static final int RENEW = 0;
  static final int READ = 1;

  private final Client client;
  private final Thread thread;
  // {send, answer} pairs, nanoTime.
  private final List<List<long[]>> answers =
      List.of(new CopyOnWriteArrayList<>(), new CopyOnWriteArrayList<>());
  private volatile boolean closed;
  private volatile long lease;

  private SilenceProbe(String endpoint) {
    this.client =
        EtcdClients.builder(EtcdClients.parseEndpoints(endpoint), Duration.ofSeconds(10)).build();
    this.thread = new Thread(this::run, "silence-probe " + endpoint);
    this.thread.setDaemon(true);
  }

  static SilenceProbe start(String endpoint) {
    SilenceProbe probe = new SilenceProbe(endpoint);
    probe.thread.start();
    return probe;
  }

  Optional<Long> firstAnswerAfter(long at, int what) {
    long best = Long.MAX_VALUE;
    for (long[] pair : answers.get(what)) {
      if (pair[0] - at >= 0 && pair[1] - at < best) {
        best = pair[1] - at;
      }
    }
    return best == Long.MAX_VALUE ? Optional.empty() : Optional.of(best);
  }

  private void run() {
    ByteSequence key = ByteSequence.from("/silence-probe", StandardCharsets.UTF_8);
    while (!closed) {
      long sent = System.nanoTime();
      try {
        if (lease == 0) {
          lease = client.getLeaseClient().grant(600).get(10, TimeUnit.SECONDS).getID();
        }
        client
            .getLeaseClient()
            .keepAliveOnce(lease)
            .thenRun(() -> answers.get(RENEW).add(new long[] {sent, System.nanoTime()}));
        client
            .getKVClient()
            .get(key)
            .thenRun(() -> answers.get(READ).add(new long[] {sent, System.nanoTime()}));
      } catch (InterruptedException e) {
        return;
      } catch (Exception e) {
        // etcd away: try again next time
      }
      try {
        Thread.sleep(EVERY_MILLIS); // the probe's pace, not a wait for a state
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    thread.interrupt();
    client.close();
  }
}
