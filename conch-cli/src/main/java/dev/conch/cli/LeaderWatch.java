package dev.conch.cli;

import dev.conch.Durations;
import dev.conch.EtcdUnavailableException;
import dev.conch.Holder;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code --watch}: follows who leads an office, without a lease, across etcd restarts.
 *
 * <p>etcd's own Observe skips leaders, never reports a vacancy and ends when its watch breaks; and
 * jetcd resumes a broken watch silently (ETCD-NOTES (c) 4 and 8). So this keeps every candidate key
 * of the election itself: a full read, then the watch's events applied in revision order, the
 * leader being the key with the smallest create revision and a vacancy the moment none is left. On
 * any watch error, and every {@link #RESYNC} in any case, it drops the watch, reads again and
 * watches anew from that read.
 */
final class LeaderWatch {

  private static final Logger log = LoggerFactory.getLogger(LeaderWatch.class);

  /** How stale a watch that broke without saying so can leave the view, at worst. */
  static final Duration RESYNC = Duration.ofSeconds(5);

  /** The pause between reads while etcd does not answer. */
  private static final Duration RETRY = Duration.ofSeconds(1);

  private final Supplier<Client> connect;
  private final String office;
  private final ByteSequence prefix;
  private final Duration timeout;
  private final Consumer<Optional<Holder>> changes;
  private final Map<ByteSequence, KeyValue> candidates = new HashMap<>();
  private Client client;

  /** The create revision of the leader shown last, 0 for a vacancy; null before the first. */
  private Long shownRev;

  /**
   * @param connect makes a client; called again after an outage
   * @param electionName the office's election name; candidate keys are under it plus '/'
   * @param changes receives the first state and then each change of leader (empty: vacant)
   */
  LeaderWatch(
      Supplier<Client> connect,
      String office,
      String electionName,
      Duration timeout,
      Consumer<Optional<Holder>> changes) {
    this.connect = connect;
    this.office = office;
    this.prefix = ByteSequence.from(electionName + "/", StandardCharsets.UTF_8);
    this.timeout = timeout;
    this.changes = changes;
  }

  /**
   * Runs until interrupted.
   *
   * @throws EtcdUnavailableException when the very first read fails: there is nothing to show
   */
  void run() throws InterruptedException {
    boolean outage = false;
    while (true) {
      long fromRevision;
      try {
        fromRevision = read();
      } catch (EtcdUnavailableException e) {
        if (shownRev == null) {
          throw e;
        }
        if (!outage) {
          log.warn("office {}: etcd unreachable, watching again once it answers", office, e);
          outage = true;
        }
        // A new client on each attempt: gRPC's reconnect back-off grows towards two minutes
        // while etcd is away, and would hold the view stale that long after etcd is back.
        reconnect();
        TimeUnit.NANOSECONDS.sleep(RETRY.toNanos());
        continue;
      }
      if (outage) {
        log.info("office {}: etcd answers again (revision {})", office, fromRevision - 1);
        outage = false;
      }
      follow(fromRevision);
    }
  }

  private void reconnect() {
    Client old = client;
    client = null;
    if (old != null) {
      try {
        old.close();
      } catch (RuntimeException e) {
        log.debug("office {}: closing the old client failed", office, e);
      }
    }
  }

  /** Reads every candidate, shows the leader if it changed; returns where to watch from. */
  private long read() throws InterruptedException {
    if (client == null) {
      client = connect.get();
    }
    GetResponse all =
        await(
            client.getKVClient().get(prefix, GetOption.builder().isPrefix(true).build()),
            "reading the candidates of office '" + office + "'");
    candidates.clear();
    for (KeyValue kv : all.getKvs()) {
      candidates.put(kv.getKey(), kv);
    }
    show();
    return all.getHeader().getRevision() + 1;
  }

  /** Applies the watch's events until it fails or {@link #RESYNC} passes. */
  private void follow(long fromRevision) throws InterruptedException {
    BlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
    Watch.Watcher watcher =
        client
            .getWatchClient()
            .watch(
                prefix,
                WatchOption.builder().isPrefix(true).withRevision(fromRevision).build(),
                Watch.listener(inbox::add, inbox::add, () -> inbox.add(Boolean.FALSE)));
    try {
      long resyncAt = System.nanoTime() + RESYNC.toNanos();
      while (true) {
        Object next = inbox.poll(resyncAt - System.nanoTime(), TimeUnit.NANOSECONDS);
        if (next == null) {
          return;
        }
        if (!(next instanceof WatchResponse response)) {
          log.debug("office {}: watch ended ({}); reading again", office, next);
          return;
        }
        apply(response.getEvents());
      }
    } finally {
      watcher.close();
    }
  }

  /** Applies events in order, showing the leader after each revision (one write, one state). */
  private void apply(List<WatchEvent> events) {
    for (int i = 0; i < events.size(); i++) {
      KeyValue kv = events.get(i).getKeyValue();
      if (events.get(i).getEventType() == WatchEvent.EventType.DELETE) {
        candidates.remove(kv.getKey());
      } else if (events.get(i).getEventType() == WatchEvent.EventType.PUT) {
        candidates.put(kv.getKey(), kv);
      }
      boolean lastOfRevision =
          i == events.size() - 1
              || events.get(i + 1).getKeyValue().getModRevision() != kv.getModRevision();
      if (lastOfRevision) {
        show();
      }
    }
  }

  /**
   * Shows the leader when it differs from what was shown last: another key (create revision) or a
   * vacancy. A new value under the same key (a proclaim, conch's confirmation of its win) is the
   * same leadership, not a change.
   */
  private void show() {
    Optional<Holder> leader =
        candidates.values().stream()
            .min(Comparator.comparingLong(KeyValue::getCreateRevision))
            .map(
                kv ->
                    Holder.parse(
                        office,
                        kv.getValue().toString(StandardCharsets.UTF_8),
                        kv.getCreateRevision(),
                        kv.getLease()));
    long rev = leader.map(Holder::rev).orElse(0L);
    if (shownRev == null || shownRev != rev) {
      shownRev = rev;
      changes.accept(leader);
    }
  }

  private <T> T await(java.util.concurrent.CompletableFuture<T> call, String what)
      throws InterruptedException {
    try {
      return call.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      call.cancel(true);
      throw new EtcdUnavailableException(
          "etcd did not answer " + what + " within " + Durations.format(timeout), e);
    } catch (ExecutionException e) {
      throw new EtcdUnavailableException(what + " failed: " + e.getCause().getMessage(), e);
    }
  }
}
