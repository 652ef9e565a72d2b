package dev.conch.etcd;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;
import java.util.concurrent.ExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The threads of conch's etcd calls: jetcd starts the calls there ({@link
 * io.etcd.jetcd.ClientBuilder#executorService}) and gRPC delivers their answers there (this
 * interceptor sets every call's executor). One pool that every client of the process shares: as
 * many daemon threads as processors (at least two), {@code conch-etcd-<n>}, each ended after ten
 * idle seconds, and one more lent for each task that has run {@link LendingPool#LEND_AFTER} or
 * longer, while it runs ({@link LendingPool}).
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

  private static final Logger log = LoggerFactory.getLogger(CallThreads.class);

  private static final LendingPool POOL =
      new LendingPool(
          "conch-etcd",
          Math.max(2, Runtime.getRuntime().availableProcessors()),
          (thread, millis, base) ->
              log.warn(
                  "An etcd answer's callback held {} for {} ms: the answers of every etcd call of"
                      + " this process run on {} shared threads, and one more is lent for each"
                      + " callback that runs {} ms or longer; callbacks should not wait",
                  thread,
                  millis,
                  base,
                  LendingPool.LEND_AFTER.toMillis()));

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
    if (POOL.owns(Thread.currentThread())) {
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
}
