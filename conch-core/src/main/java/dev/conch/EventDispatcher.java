package dev.conch;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands events to listeners through a bounded buffer: when the buffer is full the event is dropped
 * and counted, so that a slow listener never stalls the election. Delivery runs on the threads all
 * elections share ({@link SharedThreads#EVENTS}); the events of one election are delivered one
 * after another, in order. A listener that blocks holds up the events of its own election only: the
 * threads grow by one while a call runs long ({@link SlowCall}).
 */
final class EventDispatcher implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(EventDispatcher.class);

  private final BlockingQueue<ElectionEvent> buffer;
  private final List<ElectionListener> listeners = new CopyOnWriteArrayList<>();
  private final AtomicLong dropped = new AtomicLong();
  private final AtomicBoolean draining = new AtomicBoolean();
  private final String name;
  private volatile boolean closed;

  EventDispatcher(String office, int capacity) {
    this.buffer = new ArrayBlockingQueue<>(capacity);
    this.name = "conch-events-" + office;
  }

  AutoCloseable add(ElectionListener listener) {
    listeners.add(listener);
    return () -> listeners.remove(listener);
  }

  void post(ElectionEvent event) {
    if (listeners.isEmpty() || closed) {
      return;
    }
    if (!buffer.offer(event)) {
      long count = dropped.incrementAndGet();
      log.debug("dropped {} (listeners too slow; {} dropped so far)", event, count);
      return;
    }
    schedule();
  }

  long dropped() {
    return dropped.get();
  }

  private void schedule() {
    if (draining.compareAndSet(false, true)) {
      try {
        SharedThreads.EVENTS.execute(() -> SharedThreads.runAs(name, this::drain));
      } catch (RejectedExecutionException e) {
        draining.set(false);
      }
    }
  }

  private void drain() {
    try {
      for (ElectionEvent next = buffer.poll(); next != null; next = buffer.poll()) {
        for (ElectionListener listener : listeners) {
          SlowCall call = new SlowCall(listener, next);
          try {
            listener.onEvent(next);
          } catch (RuntimeException | Error e) {
            log.warn("listener {} failed on {}", listener, next, e);
          } finally {
            call.end();
          }
        }
      }
    } finally {
      draining.set(false);
    }
    // An event posted after the last poll but before the flag was cleared still gets delivered.
    if (!buffer.isEmpty()) {
      schedule();
    }
  }

  /**
   * Watches one listener call: once it has run for {@link SharedThreads#SLOW_LISTENER} it is
   * reported and the event threads get one more while it runs, so that the elections queued behind
   * it (all of the process's share two threads) get their events on time.
   */
  private final class SlowCall {

    private final ElectionListener listener;
    private final ElectionEvent event;
    private final long start = System.nanoTime();
    private final ScheduledFuture<?> timer;

    // Guarded by this: the call was found slow (a thread lent), or it has returned.
    private boolean slow;
    private boolean ended;

    SlowCall(ElectionListener listener, ElectionEvent event) {
      this.listener = listener;
      this.event = event;
      this.timer =
          SharedThreads.TIMER.schedule(
              this::slow, SharedThreads.SLOW_LISTENER.toNanos(), TimeUnit.NANOSECONDS);
    }

    private void slow() {
      synchronized (this) {
        if (ended) {
          return;
        }
        slow = true;
        SharedThreads.lendEventThread();
      }
      log.warn(
          "{}: listener {} has run for {} on {} and still runs; the events of this office wait"
              + " for it, the other offices' go on",
          name,
          listener,
          Durations.format(SharedThreads.SLOW_LISTENER),
          event);
    }

    void end() {
      timer.cancel(false);
      synchronized (this) {
        ended = true;
        if (!slow) {
          return;
        }
        SharedThreads.returnEventThread();
      }
      log.info(
          "{}: listener {} returned after {}",
          name,
          listener,
          Durations.format(Duration.ofNanos(System.nanoTime() - start)));
    }
  }

  /** Delivers what is buffered (bounded by a second); later events are not delivered. */
  @Override
  public void close() {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
    while ((draining.get() || !buffer.isEmpty()) && System.nanoTime() - deadline < 0) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
    closed = true;
    buffer.clear();
  }
}
