package dev.conch;

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
 * listeners, and hook threads created as hooks run. All are daemons and end after ten idle seconds,
 * so nothing needs stopping; a thread is named after the office whose work it does while it does
 * it.
 */
final class SharedThreads {

  /**
   * The elections' loops ({@link FencedElection}): steps that never block, each election's one
   * after another ({@link Serial}). Waiting (following, holding, backing off) costs no thread.
   */
  static final ExecutorService LOOPS = pool("conch-election", 2, new LinkedBlockingQueue<>());

  /** Wakes loops at a time (a deadline, a back-off, a hook timeout); runs nothing else. */
  static final ScheduledExecutorService TIMER = timer();

  /** Event delivery: two threads at most; each election's events stay in order (one drain each). */
  static final ExecutorService EVENTS = pool("conch-events", 2, new LinkedBlockingQueue<>());

  /**
   * Hooks and gates (user code, which may block): a thread per hook running at the same time, no
   * more; a hook given up (it overran its timeout) keeps its thread until it returns, and the next
   * hook gets another one.
   */
  static final ExecutorService HOOKS =
      pool("conch-hooks", Integer.MAX_VALUE, new SynchronousQueue<>());

  private SharedThreads() {}

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

  private static ExecutorService pool(String name, int max, BlockingQueue<Runnable> queue) {
    int core = queue instanceof SynchronousQueue ? 0 : max;
    ThreadPoolExecutor executor =
        new ThreadPoolExecutor(core, max, 10, TimeUnit.SECONDS, queue, named(name));
    executor.allowCoreThreadTimeOut(core > 0);
    return executor;
  }

  private static ScheduledExecutorService timer() {
    ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, named("conch-timer"));
    executor.setRemoveOnCancelPolicy(true);
    executor.setKeepAliveTime(10, TimeUnit.SECONDS);
    executor.allowCoreThreadTimeOut(true);
    return executor;
  }
}
