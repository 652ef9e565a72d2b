package dev.conch;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads every election of the process shares, so that their number does not grow with the
 * number of offices: two that run the elections' loops, one timer, two that deliver events to
 * listeners (and one more for each listener call that is slow), and hook threads created as hooks
 * run. All are daemons and end after ten idle seconds, so nothing needs stopping; a thread is named
 * after the office whose work it does while it does it.
 */
final class SharedThreads {

  /**
   * The elections' loops ({@link FencedElection}): steps that never block, each election's one
   * after another ({@link Serial}). Waiting (following, holding, backing off) costs no thread.
   */
  static final ExecutorService LOOPS = pool("conch-election", 2, new LinkedBlockingQueue<>());

  /** Wakes loops at a time (a deadline, a back-off, a hook timeout); runs nothing else. */
  static final ScheduledExecutorService TIMER = timer();

  /**
   * Event delivery: two threads, and one more for each listener call that has run longer than
   * {@link #SLOW_LISTENER} ({@link #lendEventThread}) while it runs; each election's events stay in
   * order (one drain each). A listener that blocks holds up its own election's events, never the
   * others'.
   */
  static final ThreadPoolExecutor EVENTS = events();

  /**
   * How long a listener call may run before the other elections' events get a thread of their own.
   */
  static final Duration SLOW_LISTENER = Duration.ofSeconds(1);

  private static final int EVENT_THREADS = 2;

  /**
   * Hooks and gates (user code, which may block): a thread per hook running at the same time, no
   * more; a hook given up (it overran its timeout) keeps its thread until it returns, and the next
   * hook gets another one.
   */
  static final ExecutorService HOOKS =
      pool("conch-hooks", Integer.MAX_VALUE, new SynchronousQueue<>());

  private SharedThreads() {}

  /** One more event thread while a slow listener call holds one: the queue behind it moves on. */
  static synchronized void lendEventThread() {
    int size = EVENTS.getCorePoolSize() + 1;
    EVENTS.setMaximumPoolSize(size);
    EVENTS.setCorePoolSize(size);
  }

  /**
   * The slow listener call returned: a thread leaves when it next looks for work (the maximum, kept
   * equal to the core size, is what makes it: the idle timeout alone never ends one while events
   * keep every thread busy in turn).
   */
  static synchronized void returnEventThread() {
    int size = Math.max(EVENT_THREADS, EVENTS.getCorePoolSize() - 1);
    EVENTS.setCorePoolSize(size);
    EVENTS.setMaximumPoolSize(size);
  }

  /** Runs {@code work} with the current thread named {@code name}, then restores the name. */
  static void runAs(String name, Runnable work) {
    Thread thread = Thread.currentThread();
    String before = thread.getName();
    thread.setName(name);
    try {
      work.run();
    } finally {
      thread.setName(before);
    }
  }

  private static ThreadFactory named(String name) {
    AtomicInteger count = new AtomicInteger();
    return task -> {
      Thread thread = new Thread(task, name + "-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  private static ThreadPoolExecutor pool(String name, int max, BlockingQueue<Runnable> queue) {
    int core = queue instanceof SynchronousQueue ? 0 : max;
    ThreadPoolExecutor executor =
        new ThreadPoolExecutor(core, max, 10, TimeUnit.SECONDS, queue, named(name));
    executor.allowCoreThreadTimeOut(core > 0);
    return executor;
  }

  private static ThreadPoolExecutor events() {
    return pool("conch-events", EVENT_THREADS, new LinkedBlockingQueue<>());
  }

  private static ScheduledExecutorService timer() {
    ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, named("conch-timer"));
    executor.setRemoveOnCancelPolicy(true);
    executor.setKeepAliveTime(10, TimeUnit.SECONDS);
    executor.allowCoreThreadTimeOut(true);
    return executor;
  }
}
