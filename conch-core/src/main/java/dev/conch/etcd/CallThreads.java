package dev.conch.etcd;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The threads of conch's etcd calls: jetcd starts the calls there ({@link
 * io.etcd.jetcd.ClientBuilder#executorService}) and gRPC delivers their answers there (this
 * interceptor sets every call's executor). One pool that every client of the process shares, as
 * many daemon threads as processors (at least two), each ended after ten idle seconds; {@code
 * conch-etcd-<n>}.
 *
 * <p>Before, gRPC delivered answers on its own cached pool, which starts a thread whenever a burst
 * finds all of its threads busy: 90 of them while 10,000 campaigns were answered, where a few do
 * the same work on two cores. A bounded pool has one rule in return: work on it never waits for
 * another call's answer, which could need this very thread. conch's code here only completes
 * futures, queues events and hands work to the elections' loops; its waits ({@link EtcdCalls},
 * {@link OpenAttempts}) refuse to run here when assertions are on (the tests), and a task that held
 * a thread for a second or more is logged, at most once a minute.
 */
final class CallThreads implements ClientInterceptor {

  static final CallThreads INSTANCE = new CallThreads();

  private static final Logger log = LoggerFactory.getLogger(CallThreads.class);

  private static final long SLOW = TimeUnit.SECONDS.toNanos(1);
  private static final long WARN_EVERY = TimeUnit.MINUTES.toNanos(1);

  private static final ExecutorService POOL = pool();

  private static volatile long lastWarning = System.nanoTime() - WARN_EVERY;

  private CallThreads() {}

  /** The executor jetcd starts calls on. */
  static ExecutorService executor() {
    return POOL;
  }

  /** Whether the current thread is one of these (where nothing may wait for an etcd answer). */
  static boolean current() {
    return Thread.currentThread() instanceof CallThread;
  }

  /**
   * For an {@code assert} where conch waits for etcd: false, with the reason, on one of these.
   *
   * @throws AssertionError naming what would have waited
   */
  static boolean notHere(String what) {
    if (current()) {
      throw new AssertionError(
          "waiting for "
              + what
              + " on "
              + Thread.currentThread().getName()
              + ", a thread that "
              + "delivers etcd's answers: the answer waited for could need this thread");
    }
    return true;
  }

  @Override
  public <Q, R> ClientCall<Q, R> interceptCall(
      MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
    return next.newCall(
        method, options.getExecutor() == null ? options.withExecutor(POOL) : options);
  }

  private static ExecutorService pool() {
    int threads = Math.max(2, Runtime.getRuntime().availableProcessors());
    AtomicInteger number = new AtomicInteger();
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            threads,
            threads,
            10,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            work -> new CallThread(work, "conch-etcd-" + number.incrementAndGet())) {
          @Override
          protected void beforeExecute(Thread thread, Runnable work) {
            ((CallThread) thread).started = System.nanoTime();
          }

          @Override
          protected void afterExecute(Runnable work, Throwable error) {
            long now = System.nanoTime();
            long took = now - ((CallThread) Thread.currentThread()).started;
            if (took >= SLOW && now - lastWarning >= WARN_EVERY) {
              lastWarning = now;
              log.warn(
                  "An etcd answer held {} for {} ms: the answers of every etcd call of this process"
                      + " run on {} shared threads, and work on them must not wait",
                  Thread.currentThread().getName(),
                  TimeUnit.NANOSECONDS.toMillis(took),
                  threads);
            }
          }
        };
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }

  private static final class CallThread extends Thread {
    long started;

    CallThread(Runnable work, String name) {
      super(work, name);
      setDaemon(true);
    }
  }
}
