package dev.conch;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * The leader-only work of one term that runs now ({@link Leadership#startWork}): what a stop waits
 * for before the lose hooks run, and what it interrupts at its bound. Once {@link #close closed} it
 * takes no more work, so a call that starts after the term began to stop never runs: the check and
 * the registration are one step, under one lock.
 */
final class RunningWork {

  private final Object lock = new Object();

  // Guarded by lock.
  private final Set<Call> running = new LinkedHashSet<>();
  private boolean closed;
  private @Nullable Runnable whenIdle;

  /** Registers a call on the calling thread; empty once the term takes no more work. */
  Optional<Leadership.Work> start(String name) {
    synchronized (lock) {
      if (closed) {
        return Optional.empty();
      }
      Call call = new Call(name, Thread.currentThread());
      running.add(call);
      return Optional.of(call);
    }
  }

  /** Whether no call runs now. */
  boolean isIdle() {
    synchronized (lock) {
      return running.isEmpty();
    }
  }

  /**
   * Takes no more work; {@code idle} is called once no call runs (at once, on this thread, when
   * none does), on the thread whose call ended last.
   */
  void close(Runnable idle) {
    boolean now;
    synchronized (lock) {
      closed = true;
      now = running.isEmpty();
      whenIdle = now ? null : idle;
    }
    if (now) {
      idle.run();
    }
  }

  /** Interrupts every call that still runs and stops waiting for them; returns their names. */
  List<String> interruptAll() {
    List<Call> left;
    synchronized (lock) {
      left = new ArrayList<>(running);
      running.clear();
      whenIdle = null;
    }
    List<String> names = new ArrayList<>();
    for (Call call : left) {
      call.interrupt();
      names.add(call.name);
    }
    return names;
  }

  /**
   * Stops waiting for the calls of {@code thread}: a call that ends its own term (a resign from
   * inside a leader-only call) would otherwise wait for itself until the bound.
   */
  void detach(Thread thread) {
    stopWaiting(call -> call.thread == thread);
  }

  private void finished(Call call) {
    stopWaiting(call::equals);
  }

  /** Stops waiting for the calls {@code which} matches; the last one gone says the term is idle. */
  private void stopWaiting(Predicate<Call> which) {
    Runnable idle = null;
    synchronized (lock) {
      if (running.removeIf(which) && closed && running.isEmpty()) {
        idle = whenIdle;
        whenIdle = null;
      }
    }
    if (idle != null) {
      idle.run();
    }
  }

  /** One call of leader-only work, on the thread that started it. */
  private final class Call implements Leadership.Work {

    private final String name;
    private final Thread thread;
    private volatile boolean interrupted;
    private boolean ended; // guarded by this

    Call(String name, Thread thread) {
      this.name = name;
      this.thread = thread;
    }

    /** Interrupts the call's thread, unless the call has ended: then the thread is another's. */
    synchronized void interrupt() {
      if (!ended) {
        interrupted = true;
        thread.interrupt();
      }
    }

    @Override
    public boolean interrupted() {
      return interrupted;
    }

    @Override
    public void close() {
      synchronized (this) {
        if (ended) {
          return;
        }
        ended = true;
      }
      finished(this);
    }
  }
}
