package dev.conch;

import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands events to listeners on a thread of its own through a bounded buffer: when the buffer is
 * full the event is dropped and counted, so that a slow listener never stalls the election.
 */
final class EventDispatcher implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(EventDispatcher.class);
  private static final Object STOP = new Object();

  private final BlockingQueue<Object> buffer;
  private final List<ElectionListener> listeners = new CopyOnWriteArrayList<>();
  private final AtomicLong dropped = new AtomicLong();
  private final String name;

  // Guarded by this: started with the first listener, so an election nobody listens to has none.
  private Thread thread;
  private boolean closed;

  EventDispatcher(String office, int capacity) {
    // One slot more than asked for, so that STOP always fits.
    this.buffer = new ArrayBlockingQueue<>(capacity + 1);
    this.name = "conch-events-" + office;
  }

  AutoCloseable add(ElectionListener listener) {
    synchronized (this) {
      if (thread == null && !closed) {
        thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
      }
    }
    listeners.add(listener);
    return () -> listeners.remove(listener);
  }

  void post(ElectionEvent event) {
    if (listeners.isEmpty()) {
      return;
    }
    if (buffer.remainingCapacity() <= 1 || !buffer.offer(event)) {
      long count = dropped.incrementAndGet();
      log.debug("dropped {} (listeners too slow; {} dropped so far)", event, count);
    }
  }

  long dropped() {
    return dropped.get();
  }

  private void run() {
    try {
      for (Object next = buffer.take(); next != STOP; next = buffer.take()) {
        for (ElectionListener listener : listeners) {
          try {
            listener.onEvent((ElectionEvent) next);
          } catch (RuntimeException | Error e) {
            log.warn("listener {} failed on {}", listener, next, e);
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Delivers what is buffered (bounded by a second), then stops the thread. */
  @Override
  public void close() {
    Thread thread;
    synchronized (this) {
      closed = true;
      thread = this.thread;
    }
    if (thread == null) {
      return;
    }
    buffer.offer(STOP);
    try {
      thread.join(TimeUnit.SECONDS.toMillis(1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      thread.interrupt();
    }
  }
}
