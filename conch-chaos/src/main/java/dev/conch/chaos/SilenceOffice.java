package dev.conch.chaos;

import dev.conch.Durations;
import dev.conch.Election;
import dev.conch.ElectionEvent;
import dev.conch.ElectionOptions;
import dev.conch.Leadership;
import dev.conch.etcd.EtcdClients;
import dev.conch.etcd.EtcdSession;
import dev.conch.etcd.SessionOptions;
import dev.conch.test.EtcdCluster;
import io.etcd.jetcd.Client;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * One conch session holding one office, its term's deadline watched every 5 ms, for {@link
 * LeaderChangeSilence}.
 */
final class SilenceOffice implements AutoCloseable {
  final String name;
  private final Client client;
  final EtcdSession session;
  final Election election;
  private final long lossLeadNanos;
  private final Thread watcher;
  // nanoTime of every move of the term's deadline.
  private final List<Long> rounds = new CopyOnWriteArrayList<>();
  private final List<Long> losses = new CopyOnWriteArrayList<>();
  volatile long lowestSlack = Long.MAX_VALUE;
  private volatile boolean closed;

  private SilenceOffice(
      EtcdCluster cluster, String name, Duration ttl, Duration stop, Duration margin) {
    this.name = name + " (ttl " + Durations.format(ttl) + ", stop " + Durations.format(stop) + ")";
    this.client =
        EtcdClients.builder(
                EtcdClients.parseEndpoints(cluster.endpoints()), SessionOptions.DEFAULT_TIMEOUT)
            .build();
    this.session = EtcdSession.open(client, SessionOptions.defaults().withTtl(ttl));
    this.election =
        session.election(
            ElectionOptions.builder(name).stopTimeout(stop).safetyMargin(margin).build());
    this.lossLeadNanos = stop.plus(margin).toNanos();
    election.addListener(
        event -> {
          if (event instanceof ElectionEvent.Lost) {
            losses.add(System.nanoTime());
          }
        });
    this.watcher = new Thread(this::watch, "silence-office " + name);
    this.watcher.setDaemon(true);
  }

  static SilenceOffice start(EtcdCluster cluster, String name, Duration ttl, Duration stop)
      throws InterruptedException {
    SilenceOffice office =
        new SilenceOffice(cluster, name, ttl, stop, ElectionOptions.DEFAULT_SAFETY_MARGIN);
    office.election.start();
    if (!office.election.awaitLeadership(Duration.ofSeconds(30))) {
      throw new IllegalStateException("office " + name + " did not lead within 30 s");
    }
    office.watcher.start();
    return office;
  }

  Optional<Long> firstRoundAfter(long at) {
    return rounds.stream().filter(t -> t - at >= 0).findFirst().map(t -> t - at);
  }

  int lossesSince(long at) {
    return (int) losses.stream().filter(t -> t - at >= 0).count();
  }

  private void watch() {
    LongSupplier now = System::nanoTime;
    long lastDeadline = 0;
    while (!closed) {
      Optional<Leadership> term = election.leadership();
      if (term.isPresent()) {
        long left = term.get().timeToDeadline().toNanos();
        long t = now.getAsLong();
        long deadline = t + left;
        if (lastDeadline != 0 && deadline - lastDeadline > TimeUnit.MILLISECONDS.toNanos(20)) {
          rounds.add(t);
        }
        lastDeadline = deadline;
        lowestSlack = Math.min(lowestSlack, left - lossLeadNanos);
      } else {
        lastDeadline = 0;
      }
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    watcher.interrupt();
    election.close();
    session.close();
    client.close();
  }
}
