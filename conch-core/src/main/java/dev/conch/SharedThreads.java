package dev.conch;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads every election of the process shares, so that their number does not grow with the
 * number of offices: two that deliver events to listeners, and hook threads created as hooks run.
 * All are daemons and end after ten idle seconds, so nothing needs stopping; a thread is named
 * after the office whose work it does while it does it.
 */
final class SharedThreads {

  /** Event delivery: two threads at most; each election's events stay in order (one drain each). */
  static final ExecutorService EVENTS = pool("conch-events", 2, new LinkedBlockingQueue<>());

  /**
   * Hooks: a thread per hook running at the same time, no more; a hook given up (it overran its
   * timeout) keeps its thread until it returns, and the next hook gets another one.
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

  private static ExecutorService pool(
      String name, int max, java.util.concurrent.BlockingQueue<Runnable> queue) {
    AtomicInteger count = new AtomicInteger();
    ThreadFactory factory =
        task -> {
          Thread thread = new Thread(task, name + "-" + count.incrementAndGet());
          thread.setDaemon(true);
          return thread;
        };
    int core = queue instanceof SynchronousQueue ? 0 : max;
    ThreadPoolExecutor executor =
        new ThreadPoolExecutor(core, max, 10, TimeUnit.SECONDS, queue, factory);
    executor.allowCoreThreadTimeOut(core > 0);
    return executor;
  }
}
