package dev.conch.etcd;

import dev.conch.EtcdUnavailableException;
import dev.conch.Holder;
import io.etcd.jetcd.Client;
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
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches who leads an office, without a lease and without campaigning, across etcd outages and
 * restarts: {@code conch elect --watch}, and any observer of an office.
 *
 * <p>etcd's own Observe skips leaders, never reports a vacancy and ends when its watch breaks. So
 * this keeps every candidate key of the election itself: a full read, then the watch's events
 * applied in revision order, the leader being the key with the smallest create revision and a
 * vacancy the moment none is left. On any watch error, and every {@link #RESYNC} in any case (a
 * stream that stalls without breaking cannot hide a change for longer), it drops the watch, reads
 * again and watches anew from that read. While etcd does not answer it logs once and reads again
 * every second.
 *
 * <p>It reads through a {@link Source}: {@link #source(Client)} over jetcd, or any other way to
 * reach etcd (the CLI's read forms use etcd's JSON gateway, so as not to start gRPC).
 */
public final class LeaderWatcher {

  private static final Logger log = LoggerFactory.getLogger(LeaderWatcher.class);

  /** How stale a watch that broke without saying so can leave the view, at worst: 5 s. */
  public static final Duration RESYNC = Duration.ofSeconds(5);

  /** The pause between reads while etcd does not answer. */
  private static final Duration RETRY = Duration.ofSeconds(1);

  /**
   * What a watcher reads etcd with: a range read and a watch of the keys under a prefix. Every
   * failure is an {@link IOException}; a {@link java.net.SocketTimeoutException} when etcd did not
   * answer in time.
   */
  public interface Source extends AutoCloseable {

    /**
     * One key: its text, value and revisions.
     *
     * @param key the key
     * @param value the value, as UTF-8 text
     * @param createRevision the revision that created it
     * @param modRevision the revision that last changed it
     * @param lease the lease it is attached to, 0 for none
     */
    record Kv(String key, String value, long createRevision, long modRevision, long lease) {}

    /**
     * A range read.
     *
     * @param revision the store's revision when it was read
     * @param kvs the keys
     */
    record Range(long revision, List<Kv> kvs) {}

    /**
     * One event of a watch.
     *
     * @param deleted whether the key was deleted (else put)
     * @param kv the key as the event left it (for a delete: its key and the deleting revision)
     */
    record Event(boolean deleted, Kv kv) {}

    /** An open watch; {@link #close()} ends it. */
    interface Watch extends AutoCloseable {
      @Override
      void close();
    }

    /**
     * Reads the keys under {@code prefix}; {@code firstCreated}: only the one with the smallest
     * create revision (the leader of an election).
     *
     * @throws IOException when etcd did not answer; a {@link java.net.SocketTimeoutException} when
     *     it did not within {@code timeout}
     */
    Range range(String prefix, boolean firstCreated, Duration timeout) throws IOException;

    /**
     * Reads the last {@code limit} keys under {@code prefix} in key order, the last first (the
     * newest terms of an office's history, {@link TermHistory}).
     *
     * @throws IOException as {@link #range} does
     */
    Range newest(String prefix, int limit, Duration timeout) throws IOException;

    /**
     * Watches the keys under {@code prefix} from {@code fromRevision}. {@code events} gets each
     * response's events as a {@code List<Event>}, on another thread, then one {@link IOException}
     * when the watch ends for any reason (never a silent end).
     */
    Watch watch(String prefix, long fromRevision, Duration timeout, Consumer<Object> events)
        throws IOException;

    @Override
    void close();
  }

  private final Source source;
  private final String office;
  private final String prefix;
  private final Duration timeout;
  private final Consumer<Optional<Holder>> changes;
  private final Map<String, Source.Kv> candidates = new HashMap<>();

  /** The create revision of the leader shown last, 0 for a vacancy; null before the first. */
  private @Nullable Long shownRev;

  /**
   * A watcher of {@code office} under the prefix of {@code options}; every read and watch request
   * is bounded by the options' timeout.
   *
   * @param changes receives the first state and then each change of leader (empty: vacant), on the
   *     thread that calls {@link #run()}
   */
  public LeaderWatcher(
      Source source, SessionOptions options, String office, Consumer<Optional<Holder>> changes) {
    this.source = source;
    this.office = office;
    this.prefix = candidatePrefix(options, office);
    this.timeout = options.timeout();
    this.changes = changes;
  }

  /** A {@link Source} over {@code client}; closing it leaves the client open. */
  public static Source source(Client client) {
    return new EtcdLeaderSource(client);
  }

  /**
   * The prefix of the candidate keys of {@code office}: its election name and '/'. The leader is
   * the key under it with the smallest create revision.
   */
  public static String candidatePrefix(SessionOptions options, String office) {
    return options.electionName(office) + "/";
  }

  /** The prefix of this office's candidate keys, for a first read made by the caller. */
  public String candidatePrefix() {
    return prefix;
  }

  /**
   * Runs until interrupted, starting with one read of the candidates.
   *
   * @throws EtcdUnavailableException when that first read fails: there is nothing to show
   */
  public void run() throws InterruptedException {
    Source.Range first;
    try {
      first = source.range(prefix, false, timeout);
    } catch (IOException e) {
      throw new EtcdUnavailableException(what() + " failed: " + ConnectionFailures.describe(e), e);
    }
    run(first);
  }

  /**
   * Runs until interrupted, starting from {@code first}, a full read of {@link #candidatePrefix()}
   * the caller made (with its own retries).
   */
  public void run(Source.Range first) throws InterruptedException {
    long fromRevision = show(first);
    boolean outage = false;
    while (true) {
      if (!outage) {
        follow(fromRevision);
      }
      try {
        fromRevision = show(source.range(prefix, false, timeout));
      } catch (IOException e) {
        if (!outage) {
          log.warn(
              "office {}: etcd unreachable ({} failed: {}), watching again once it answers",
              office,
              what(),
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

  private String what() {
    return "reading the candidates of office '" + office + "'";
  }

  /**
   * Takes a full read as the candidate set, shows the leader if it changed; where to watch from.
   */
  private long show(Source.Range all) {
    candidates.clear();
    for (Source.Kv kv : all.kvs()) {
      candidates.put(kv.key(), kv);
    }
    show();
    return all.revision() + 1;
  }

  /** Applies the watch's events until it fails or {@link #RESYNC} passes. */
  private void follow(long fromRevision) throws InterruptedException {
    BlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
    Source.Watch watch;
    try {
      watch = source.watch(prefix, fromRevision, timeout, inbox::add);
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
        List<Source.Event> batch = (List<Source.Event>) events;
        apply(batch);
      }
    } finally {
      watch.close();
    }
  }

  /** Applies events in order, showing the leader after each revision (one write, one state). */
  private void apply(List<Source.Event> events) {
    for (int i = 0; i < events.size(); i++) {
      Source.Kv kv = events.get(i).kv();
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
            .min(Comparator.comparingLong(Source.Kv::createRevision))
            .map(kv -> Holder.parse(office, kv.value(), kv.createRevision(), kv.lease()));
    long rev = leader.map(Holder::rev).orElse(0L);
    if (shownRev == null || shownRev != rev) {
      shownRev = rev;
      changes.accept(leader);
    }
  }
}
