package dev.conch.etcd;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The threads of conch's etcd calls: jetcd starts the calls there ({@link
 * io.etcd.jetcd.ClientBuilder#executorService}) and gRPC delivers their answers there (this
 * interceptor sets every call's executor). One pool that every client of the process shares: as
 * many daemon threads as processors (at least two), {@code conch-etcd-<n>}, each ended after ten
 * idle seconds, and one more lent for each task that has run {@link #LEND_AFTER} or longer, while
 * it runs.
 *
 * <p>Before, gRPC delivered answers on its own cached pool, which starts a thread whenever a burst
 * finds all of its threads busy: 90 of them while 10,000 campaigns were answered, where a few do
 * the same work on two cores. A pool of fixed size would in turn let a callback that waits hold up
 * every answer behind it, a lease's renewal among them: your code's callback on a future of the
 * same client (a database write in a {@code thenAccept}), or, worse, one that waits for another
 * call's answer, which could need this very thread. Hence the lent threads. conch's own work here
 * only completes futures, queues events and hands work to the elections' loops; its waits for etcd
 * ({@link EtcdCalls}, {@link OpenAttempts}) refuse to run here when assertions are on (the tests),
 * and a task that held a thread for a second or more is logged, at most once a minute. A client
 * does not shut the pool down when it closes (jetcd leaves an executor it was given alone).
 */
final class CallThreads implements ClientInterceptor {

  static final CallThreads INSTANCE = new CallThreads();

  /** How long a task runs before another thread is lent beside it. */
  static final Duration LEND_AFTER = Duration.ofMillis(100);

  private static final Logger log = LoggerFactory.getLogger(CallThreads.class);

  private static final long SLOW = TimeUnit.SECONDS.toNanos(1);
  private static final long WARN_EVERY = TimeUnit.MINUTES.toNanos(1);

  private static final Pool POOL =
      new Pool(Math.max(2, Runtime.getRuntime().availableProcessors()));

  private CallThreads() {}

  /** The executor jetcd starts calls on. */
  static ExecutorService executor() {
    return POOL;
  }

  /**
   * For an {@code assert} where conch waits for etcd: true anywhere but on one of these threads.
   *
   * @throws AssertionError on one of them, naming what would have waited (logged too: thrown in a
   *     future's callback, it would only fail that future)
   */
  static boolean notHere(String what) {
    if (Thread.currentThread() instanceof CallThread) {
      AssertionError error =
          new AssertionError(
              "waiting for "
                  + what
                  + " on "
                  + Thread.currentThread().getName()
                  + ", a thread that delivers etcd's answers: conch's work there must not wait");
      log.error(error.getMessage(), error);
      throw error;
    }
    return true;
  }

  @Override
  public <Q, R> ClientCall<Q, R> interceptCall(
      MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
    return next.newCall(
        method, options.getExecutor() == null ? options.withExecutor(POOL) : options);
  }

  /**
   * The pool. Its watch runs on the JDK's delay scheduler (the thread {@link
   * CompletableFuture#orTimeout} uses), every {@link #LEND_AFTER} while a task runs, and only then:
   * a scan of the threads, never anything that waits.
   */
  private static final class Pool extends ThreadPoolExecutor {
    private final int base;
    private final Set<CallThread> threads = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean watching = new AtomicBoolean();
    private final AtomicInteger number = new AtomicInteger();
    private final Executor delayed =
        CompletableFuture.delayedExecutor(
            LEND_AFTER.toNanos(), TimeUnit.NANOSECONDS, Runnable::run);
    private volatile long lastWarning = System.nanoTime() - WARN_EVERY;

    Pool(int base) {
      // Never more threads than the core size with an unbounded queue: the maximum only has to
      // allow the core size that lending raises.
      super(base, Integer.MAX_VALUE, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
      this.base = base;
      setThreadFactory(
          work -> {
            CallThread thread =
                new CallThread(work, "conch-etcd-" + number.incrementAndGet(), threads);
            threads.add(thread);
            return thread;
          });
      allowCoreThreadTimeOut(true);
    }

    @Override
    protected void beforeExecute(Thread thread, Runnable work) {
      CallThread running = (CallThread) thread;
      running.started = System.nanoTime();
      running.busy = true;
      watch();
    }

    @Override
    protected void afterExecute(Runnable work, Throwable error) {
      CallThread running = (CallThread) Thread.currentThread();
      running.busy = false;
      long now = System.nanoTime();
      long took = now - running.started;
      if (took >= SLOW && now - lastWarning >= WARN_EVERY) {
        lastWarning = now;
        log.warn(
            "An etcd answer's callback held {} for {} ms: the answers of every etcd call of this"
                + " process run on {} shared threads, and one more is lent for each callback that"
                + " runs {} ms or longer; callbacks should not wait",
            running.getName(),
            TimeUnit.NANOSECONDS.toMillis(took),
            base,
            LEND_AFTER.toMillis());
      }
    }

    private void watch() {
      if (watching.compareAndSet(false, true)) {
        delayed.execute(this::lend);
      }
    }

    /** One thread more than the base for each task that has run {@link #LEND_AFTER} or longer. */
    private void lend() {
      watching.set(false); // before the scan: a task that starts after it watches again itself
      long now = System.nanoTime();
      boolean busy = false;
      int stuck = 0;
      for (CallThread thread : threads) {
        if (thread.busy) {
          busy = true;
          if (now - thread.started >= LEND_AFTER.toNanos()) {
            stuck++;
          }
        }
      }
      if (getCorePoolSize() != base + stuck) {
        setCorePoolSize(base + stuck); // a larger size starts threads for the tasks queued
      }
      if (busy) {
        watch();
      }
    }
  }

  private static final class CallThread extends Thread {
    private final Set<CallThread> threads;
    volatile long started;
    volatile boolean busy;

    CallThread(Runnable work, String name, Set<CallThread> threads) {
      super(work, name);
      this.threads = threads;
      setDaemon(true);
    }

    @Override
    public void run() {
      try {
        super.run();
      } finally {
        threads.remove(this);
      }
    }
  }
}
