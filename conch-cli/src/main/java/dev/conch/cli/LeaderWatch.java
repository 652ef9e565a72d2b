package dev.conch.cli;

import dev.conch.EtcdUnavailableException;
import dev.conch.Holder;
import dev.conch.etcd.ConnectionFailures;
import java.io.IOException;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code --watch}: follows who leads an office, without a lease, across etcd restarts.
 *
 * <p>etcd's own Observe skips leaders, never reports a vacancy and ends when its watch breaks. So
 * this keeps every candidate key of the election itself: a full read, then the watch's events
 * applied in revision order, the leader being the key with the smallest create revision and a
 * vacancy the moment none is left. On any watch error, and every {@link #RESYNC} in any case (a
 * stream that stalls without breaking cannot hide a change for longer), it drops the watch, reads
 * again and watches anew from that read. Over etcd's JSON gateway ({@link Gateway}) each attempt is
 * a new request, and {@link GrpcStore} makes a new client after a failure, so no reconnect back-off
 * holds the view stale after etcd is back.
 */
final class LeaderWatch {

  private static final Logger log = LoggerFactory.getLogger(LeaderWatch.class);

  /** How stale a watch that broke without saying so can leave the view, at worst. */
  static final Duration RESYNC = Duration.ofSeconds(5);

  /** The pause between reads while etcd does not answer. */
  private static final Duration RETRY = Duration.ofSeconds(1);

  private final Store store;
  private final String office;
  private final String prefix;
  private final Duration timeout;
  private final Consumer<Optional<Holder>> changes;
  private final Map<String, Store.Kv> candidates = new HashMap<>();

  /** The create revision of the leader shown last, 0 for a vacancy; null before the first. */
  private Long shownRev;

  /**
   * @param electionName the office's election name; candidate keys are under it plus '/'
   * @param changes receives the first state and then each change of leader (empty: vacant)
   */
  LeaderWatch(
      Store store,
      String office,
      String electionName,
      Duration timeout,
      Consumer<Optional<Holder>> changes) {
    this.store = store;
    this.office = office;
    this.prefix = electionName + "/";
    this.timeout = timeout;
    this.changes = changes;
  }

  /**
   * Runs until interrupted.
   *
   * @throws EtcdUnavailableException when the very first read fails: there is nothing to show
   */
  void run() throws InterruptedException {
    String what = "reading the candidates of office '" + office + "'";
    long fromRevision = show(FirstAnswer.within(timeout, what, t -> store.range(prefix, false, t)));
    boolean outage = false;
    while (true) {
      if (!outage) {
        follow(fromRevision);
      }
      try {
        fromRevision = show(store.range(prefix, false, timeout));
      } catch (IOException e) {
        if (!outage) {
          log.warn(
              "office {}: etcd unreachable ({} failed: {}), watching again once it answers",
              office,
              what,
              ConnectionFailures.describe(e));
          outage = true;
        }
        TimeUnit.NANOSECONDS.sleep(RETRY.toNanos());
        continue;
      }
      if (outage) {
        log.info("office {}: etcd answers again (revision {})", office, fromRevision - 1);
        outage = false;
      }
    }
  }

  /**
   * Takes a full read as the candidate set, shows the leader if it changed; where to watch from.
   */
  private long show(Store.Range all) {
    candidates.clear();
    for (Store.Kv kv : all.kvs()) {
      candidates.put(kv.key(), kv);
    }
    show();
    return all.revision() + 1;
  }

  /** Applies the watch's events until it fails or {@link #RESYNC} passes. */
  private void follow(long fromRevision) throws InterruptedException {
    BlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
    Store.Watch watch;
    try {
      watch = store.watch(prefix, fromRevision, timeout, inbox::add);
    } catch (IOException e) {
      log.debug("office {}: watch not started ({}); reading again", office, e.toString());
      return;
    }
    try {
      long resyncAt = System.nanoTime() + RESYNC.toNanos();
      while (true) {
        Object next = inbox.poll(resyncAt - System.nanoTime(), TimeUnit.NANOSECONDS);
        if (next == null) {
          return;
        }
        if (!(next instanceof List<?> events)) {
          log.debug("office {}: watch ended ({}); reading again", office, next);
          return;
        }
        @SuppressWarnings("unchecked")
        List<Store.Event> batch = (List<Store.Event>) events;
        apply(batch);
      }
    } finally {
      watch.close();
    }
  }

  /** Applies events in order, showing the leader after each revision (one write, one state). */
  private void apply(List<Store.Event> events) {
    for (int i = 0; i < events.size(); i++) {
      Store.Kv kv = events.get(i).kv();
      if (events.get(i).deleted()) {
        candidates.remove(kv.key());
      } else {
        candidates.put(kv.key(), kv);
      }
      boolean lastOfRevision =
          i == events.size() - 1 || events.get(i + 1).kv().modRevision() != kv.modRevision();
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
            .min(Comparator.comparingLong(Store.Kv::createRevision))
            .map(kv -> Holder.parse(office, kv.value(), kv.createRevision(), kv.lease()));
    long rev = leader.map(Holder::rev).orElse(0L);
    if (shownRev == null || shownRev != rev) {
      shownRev = rev;
      changes.accept(leader);
    }
  }
}
