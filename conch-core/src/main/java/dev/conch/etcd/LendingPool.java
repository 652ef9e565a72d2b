package dev.conch.etcd;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * A pool of a few daemon threads that lends one more for each task that has run {@link #LEND_AFTER}
 * or longer, while it runs: work that is short nearly always, on as many threads as it needs when
 * some of it is not. A fixed pool would let one task that waits hold up every task queued behind
 * it; a cached pool starts a thread for every burst that finds its threads busy and keeps them
 * while the bursts recur. Threads are {@code <name>-<n>}, each ended after ten idle seconds; one
 * lent leaves as soon as the task it stood in for has ended.
 *
 * <p>The watch runs on {@link #TIMER}, every {@link #LEND_AFTER} while a task runs, and only then:
 * a scan of the threads, never anything that waits.
 */
final class LendingPool extends ThreadPoolExecutor {

  /** How long a task runs before another thread is lent beside it. */
  static final Duration LEND_AFTER = Duration.ofMillis(100);

  /**
   * The etcd side's one timer thread ({@code conch-etcd-timer}, ended after ten idle seconds): the
   * pools' watches and the leases' next rounds. It only hands work on, never runs any. Not the
   * JDK's delay scheduler, which completes futures (and so runs whatever code waits on them) on its
   * one thread: at 10,000 offices it spent seconds starting a thread for each campaign's lease
   * timeout, and the rounds waiting behind it missed their leases' deadlines.
   */
  static final ScheduledExecutorService TIMER = timer();

  /** Told of a task that held {@code thread} for {@code millis}, a second or more. */
  interface SlowTasks {
    void held(String thread, long millis, int base);
  }

  private static final long SLOW = TimeUnit.SECONDS.toNanos(1);
  private static final long WARN_EVERY = TimeUnit.MINUTES.toNanos(1);

  private final int base;
  private final @Nullable SlowTasks slow;
  private final Set<Worker> workers = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean watching = new AtomicBoolean();
  private final AtomicInteger number = new AtomicInteger();
  private volatile long lastWarning = System.nanoTime() - WARN_EVERY;

  /**
   * @param slow told, at most once a minute, of a task that ran a second or more; null: nobody
   */
  LendingPool(String name, int base, @Nullable SlowTasks slow) {
    // Never more threads than the core size with an unbounded queue; the maximum, kept equal to
    // it, is what makes a thread lent before leave once it is no longer needed (below).
    super(base, base, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
    this.base = base;
    this.slow = slow;
    setThreadFactory(
        work -> {
          Worker worker = new Worker(this, work, name + "-" + number.incrementAndGet());
          workers.add(worker);
          return worker;
        });
    allowCoreThreadTimeOut(true);
  }

  /** Whether {@code thread} is one of this pool's. */
  boolean owns(Thread thread) {
    return thread instanceof Worker worker && worker.pool == this;
  }

  @Override
  protected void beforeExecute(Thread thread, Runnable work) {
    Worker running = (Worker) thread;
    running.started = System.nanoTime();
    running.busy = true;
    watch();
  }

  @Override
  protected void afterExecute(Runnable work, @Nullable Throwable error) {
    Worker running = (Worker) Thread.currentThread();
    running.busy = false;
    long now = System.nanoTime();
    long took = now - running.started;
    if (slow != null && took >= SLOW && now - lastWarning >= WARN_EVERY) {
      lastWarning = now;
      slow.held(running.getName(), TimeUnit.NANOSECONDS.toMillis(took), base);
    }
  }

  private void watch() {
    if (watching.compareAndSet(false, true)) {
      TIMER.schedule(this::lend, LEND_AFTER.toNanos(), TimeUnit.NANOSECONDS);
    }
  }

  /** One thread more than the base for each task that has run {@link #LEND_AFTER} or longer. */
  private void lend() {
    watching.set(false); // before the scan: a task that starts after it watches again itself
    long now = System.nanoTime();
    boolean busy = false;
    int stuck = 0;
    for (Worker worker : workers) {
      if (worker.busy) {
        busy = true;
        if (now - worker.started >= LEND_AFTER.toNanos()) {
          stuck++;
        }
      }
    }
    int size = base + stuck;
    if (size > getCorePoolSize()) {
      setMaximumPoolSize(size);
      setCorePoolSize(size); // starts threads for the tasks queued
    } else if (size < getCorePoolSize()) {
      // A thread beyond the maximum leaves when it next looks for a task. The idle timeout alone
      // would keep it: the pool hands tasks to its idle threads in turn, so with steady work none
      // is ever idle for long.
      setCorePoolSize(size);
      setMaximumPoolSize(size);
    }
    if (busy) {
      watch();
    }
  }

  private static ScheduledExecutorService timer() {
    ScheduledThreadPoolExecutor timer =
        new ScheduledThreadPoolExecutor(
            1,
            work -> {
              Thread thread = new Thread(work, "conch-etcd-timer");
              thread.setDaemon(true);
              return thread;
            });
    timer.setRemoveOnCancelPolicy(true);
    timer.setKeepAliveTime(10, TimeUnit.SECONDS);
    timer.allowCoreThreadTimeOut(true);
    return timer;
  }

  private static final class Worker extends Thread {
    private final LendingPool pool;
    volatile long started;
    volatile boolean busy;

    Worker(LendingPool pool, Runnable work, String name) {
      super(work, name);
      this.pool = pool;
      setDaemon(true);
    }

    @Override
    public void run() {
      try {
        super.run();
      } finally {
        pool.workers.remove(this);
      }
    }
  }
}
