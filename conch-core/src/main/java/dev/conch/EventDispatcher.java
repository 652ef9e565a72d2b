package dev.conch;

import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
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
 * after another, in order.
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
          try {
            listener.onEvent(next);
          } catch (RuntimeException | Error e) {
            log.warn("listener {} failed on {}", listener, next, e);
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
