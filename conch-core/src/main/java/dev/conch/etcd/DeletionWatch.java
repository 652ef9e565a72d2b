package dev.conch.etcd;

import static dev.conch.etcd.EtcdCalls.text;

import dev.conch.Ticker;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.common.exception.CompactedException;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The session's one watch: the deletions under its election prefix, routed to whoever waits for one
 * key's deletion (a term for its own key, a follower for the key ahead of it). One watch for every
 * office of the session instead of one per office: jetcd opens a gRPC stream per watcher, and
 * hundreds of watches on one connection were delayed for minutes (etcd#17529). Puts are filtered
 * out by etcd ({@code NOPUT}); a deletion costs one event per session, whichever office.
 *
 * <p><b>No deletion is missed between a read and the wait that follows it.</b> A caller read at
 * revision r and waits from r + 1; the watch may have passed r + 1 already. So the deletions of the
 * last {@link #MEMORY} are remembered, and a wait from a revision they cover is answered from them.
 * A wait from a revision older than what the watch saw without a gap is answered "unknown": the
 * caller reads again (a follower) or lets the lease keeper's next round confirm its key (a term).
 *
 * <p><b>A broken watch resumes where it stopped</b>: from the revision after the last one it
 * delivered (an event, or etcd's own timed progress notification), 500 ms after the error and at
 * every renewal round after, so the deletions meanwhile come late, never not at all. Not jetcd's
 * own resume: jetcd resumes from the header revision of the create response, which skips the events
 * a resumed watch had still to catch up on. When etcd compacted past that revision, every wait that
 * began before the compaction is answered "unknown". Progress is not asked for: before etcd#15237
 * and #17557 (later than the 3.4.23 that Debian ships), a requested progress notification could
 * overtake the events it claims were sent (etcd#15220), and a resume from it would skip them.
 *
 * <p>The watch requires an etcd leader: on a member cut off from the quorum it fails instead of
 * staying silent. Callbacks run on jetcd's threads, some under its client-wide watch lock: this
 * class calls jetcd only without its own monitor held, and the callbacks never call jetcd.
 */
final class DeletionWatch implements AutoCloseable {

  /** How long a deletion is remembered for a wait that begins after the watch saw it. */
  static final Duration MEMORY = Duration.ofSeconds(30);

  /** After an error, the watch is made again after this long (as jetcd itself would). */
  static final Duration RETRY = Duration.ofMillis(500);

  private static final Logger log = LoggerFactory.getLogger(DeletionWatch.class);

  /** Who waits for a key's deletion. Called without any lock held; must not block. */
  interface Waiter {

    /** The key was deleted at a revision at or after the one the wait began from. */
    void deleted();

    /** A deletion since the wait began may have been missed: read again. */
    void unknown();
  }

  /** A wait for one key's deletion from one revision on. */
  private record Wait(ByteSequence key, long from, Waiter waiter) {}

  /** A deletion seen, for waits that begin after it. */
  private record Seen(ByteSequence key, long revision, long at) {}

  private final Supplier<Watch> watches;
  private final ByteSequence prefix;
  private final Ticker ticker;
  private final AtomicLong restarts = new AtomicLong();
  private final Object monitor = new Object();

  // Guarded by monitor.
  private final Map<ByteSequence, List<Wait>> waits = new HashMap<>();
  private final Map<ByteSequence, Long> deletedAt = new HashMap<>();
  private final ArrayDeque<Seen> seen = new ArrayDeque<>();
  // Every deletion from known on was seen (and is remembered in deletedAt while fresh); 0 before
  // the first watch.
  private long known;
  // The last revision whose deletions were all delivered; a resumed watch starts after it.
  private long through;
  private @Nullable Stream current;
  private boolean retrying;
  private boolean closed;

  DeletionWatch(Supplier<Watch> watches, ByteSequence prefix, Ticker ticker) {
    this.watches = watches;
    this.prefix = prefix;
    this.ticker = ticker;
  }

  /**
   * Starts the watch from {@code revision} unless it runs already: every wait from then on is
   * answered without a gap. The session calls it with the revision its lease was granted at, so
   * that a wait from any read made with the lease is covered.
   */
  void begin(long revision) {
    synchronized (monitor) {
      if (closed || known != 0) {
        return;
      }
      known = revision;
      through = revision - 1;
    }
    repair();
  }

  /**
   * Tells {@code waiter} of {@code key}'s deletion at revision {@code from} or later: at once if
   * the watch saw it already, else when it comes. Returns how to stop waiting.
   */
  Runnable await(ByteSequence key, long from, Waiter waiter) {
    begin(from); // only where the session began no watch (tests)
    Wait wait = new Wait(key, from, waiter);
    boolean deleted = false;
    boolean unknown = false;
    synchronized (monitor) {
      if (closed) {
        unknown = true;
      } else if (from < known) {
        unknown = true;
      } else if (deletedAt.getOrDefault(key, 0L) >= from) {
        deleted = true;
      } else {
        add(wait);
      }
    }
    if (deleted) {
      waiter.deleted();
      return () -> {};
    }
    if (unknown) {
      waiter.unknown();
      return () -> {};
    }
    return () -> remove(wait);
  }

  /**
   * Makes the watch again if it broke, from where it stopped. The session calls this after every
   * renewal round; never under a lock of jetcd's.
   */
  void repair() {
    Stream stream = new Stream();
    @Nullable Stream old;
    long from;
    synchronized (monitor) {
      old = current;
      if (closed || known == 0 || (old != null && !old.broken)) {
        return;
      }
      from = through + 1;
      if (old != null) {
        restarts.incrementAndGet();
      }
      current = stream;
    }
    if (old != null) {
      old.close();
    }
    Watch.Watcher created;
    try {
      created =
          watches
              .get()
              .watch(
                  prefix,
                  WatchOption.builder()
                      .isPrefix(true)
                      .withRevision(from)
                      .withNoPut(true)
                      .withRequireLeader(true)
                      .withProgressNotify(true)
                      .build(),
                  Watch.listener(
                      response -> delivered(stream, response),
                      error -> failed(stream, error),
                      () -> failed(stream, null)));
    } catch (RuntimeException e) {
      // A closed client: the next round tries again.
      stream.broken = true;
      log.debug("could not watch {}: {}", text(prefix), e.toString());
      return;
    }
    if (!stream.attach(created)) {
      created.close();
    }
  }

  /** How many times the watch was made again after it broke. */
  long restarts() {
    return restarts.get();
  }

  /** How many waits are registered now. */
  int waiting() {
    synchronized (monitor) {
      return waits.values().stream().mapToInt(List::size).sum();
    }
  }

  @Override
  public void close() {
    Stream last;
    List<Wait> left = new ArrayList<>();
    synchronized (monitor) {
      if (closed) {
        return;
      }
      closed = true;
      last = current;
      current = null;
      waits.values().forEach(left::addAll);
      waits.clear();
    }
    if (last != null) {
      last.close();
    }
    left.forEach(wait -> wait.waiter().unknown());
  }

  private void add(Wait wait) {
    waits.computeIfAbsent(wait.key(), k -> new ArrayList<>(1)).add(wait);
  }

  private void remove(Wait wait) {
    synchronized (monitor) {
      List<Wait> forKey = waits.get(wait.key());
      if (forKey != null && forKey.remove(wait) && forKey.isEmpty()) {
        waits.remove(wait.key());
      }
    }
  }

  private void delivered(Stream stream, WatchResponse response) {
    List<Wait> due = new ArrayList<>();
    synchronized (monitor) {
      if (stream != current || stream.broken) {
        return;
      }
      long now = ticker.nanoTime();
      for (WatchEvent event : response.getEvents()) {
        if (event.getEventType() != WatchEvent.EventType.DELETE) {
          continue;
        }
        ByteSequence key = event.getKeyValue().getKey();
        long revision = event.getKeyValue().getModRevision();
        deletedAt.merge(key, revision, Math::max);
        seen.addLast(new Seen(key, revision, now));
        List<Wait> forKey = waits.get(key);
        if (forKey != null) {
          for (Iterator<Wait> it = forKey.iterator(); it.hasNext(); ) {
            Wait wait = it.next();
            if (wait.from() <= revision) {
              due.add(wait);
              it.remove();
            }
          }
          if (forKey.isEmpty()) {
            waits.remove(key);
          }
        }
        through = Math.max(through, revision);
      }
      if (response.getEvents().isEmpty()) {
        // A progress notification: every event up to its revision was delivered.
        through = Math.max(through, response.getHeader().getRevision());
      }
      forget(now);
    }
    due.forEach(wait -> wait.waiter().deleted());
  }

  /**
   * Drops the deletions seen longer than {@link #MEMORY} ago; a wait from before them is unknown.
   */
  private void forget(long now) {
    long horizon = now - MEMORY.toNanos();
    while (!seen.isEmpty() && seen.peekFirst().at() - horizon < 0) {
      Seen old = seen.removeFirst();
      known = Math.max(known, old.revision() + 1);
      deletedAt.remove(old.key(), old.revision());
    }
  }

  /**
   * The stream broke ({@code error} null: it completed). jetcd may resume it by itself, from a
   * revision that may skip events: what it delivers from now on is ignored, and {@link #repair()}
   * closes it (not here: this runs under jetcd's lock, in the middle of jetcd's own error handling)
   * and makes another.
   */
  private void failed(Stream stream, @Nullable Throwable error) {
    List<Wait> lost = new ArrayList<>();
    synchronized (monitor) {
      if (stream != current || stream.broken) {
        return;
      }
      stream.broken = true;
      if (error != null && EtcdCalls.unwrap(error) instanceof CompactedException compacted) {
        long from = compacted.getCompactedRevision();
        log.info(
            "watch of {} resumes after a compaction at revision {}: waits from before it read"
                + " again",
            text(prefix),
            from);
        for (Iterator<List<Wait>> it = waits.values().iterator(); it.hasNext(); ) {
          List<Wait> forKey = it.next();
          forKey.removeIf(wait -> wait.from() < from && lost.add(wait));
          if (forKey.isEmpty()) {
            it.remove();
          }
        }
        known = Math.max(known, from);
        through = Math.max(through, from - 1);
      } else if (error != null) {
        log.debug("watch of {} broke: {}", text(prefix), error.toString());
      }
      if (!retrying && !closed) {
        retrying = true;
        // On conch-etcd: the JDK's default executor starts a thread per task on two cores.
        CompletableFuture.delayedExecutor(
                RETRY.toMillis(), TimeUnit.MILLISECONDS, CallThreads.executor())
            .execute(this::retry);
      }
    }
    lost.forEach(wait -> wait.waiter().unknown());
  }

  private void retry() {
    synchronized (monitor) {
      retrying = false;
    }
    repair();
  }

  /**
   * One jetcd watcher. Its callbacks are told apart from a later one's by identity; one closed
   * before jetcd returned it is closed by whoever comes second.
   */
  private static final class Stream {
    volatile boolean broken;
    private Watch.@Nullable Watcher watcher;
    private boolean closed;

    synchronized boolean attach(Watch.Watcher created) {
      if (closed) {
        return false;
      }
      watcher = created;
      return true;
    }

    void close() {
      Watch.Watcher last;
      synchronized (this) {
        closed = true;
        last = watcher;
        watcher = null;
      }
      if (last != null) {
        last.close(); // outside the lock: jetcd calls onCompleted from close()
      }
    }
  }
}
