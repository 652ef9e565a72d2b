package dev.conch.cli;

import dev.conch.Durations;
import dev.conch.EtcdUnavailableException;
import dev.conch.etcd.ConnectionFailures;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The first request of a form, asked again until it is answered or the bound passes: an etcd that
 * is still starting (connection refused for a moment) is not an outage, while a TLS or login
 * mistake is reported at once. Either way the failure names the cause seen last.
 */
final class FirstAnswer {

  /** The pause between attempts: short against the bound, long enough not to spin. */
  private static final Duration PAUSE = Duration.ofMillis(100);

  /** One attempt, bounded by {@code timeout} (what is left of the bound). */
  interface Attempt<T> {
    T call(Duration timeout) throws Exception;
  }

  private FirstAnswer() {}

  /**
   * Runs {@code attempt} until it answers, at most {@code bound} in all.
   *
   * @param what what is asked, for the message: "reading the leader of office 'x'"
   * @throws EtcdUnavailableException naming the last cause when no attempt answered
   */
  static <T> T within(Duration bound, String what, Attempt<T> attempt) throws InterruptedException {
    long deadline = System.nanoTime() + bound.toNanos();
    Throwable lastCause = null;
    Throwable last = null;
    while (true) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        break;
      }
      try {
        return attempt.call(Duration.ofNanos(left));
      } catch (InterruptedException e) {
        throw e;
      } catch (Exception e) {
        Throwable cause =
            e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        last = cause;
        if (!isTimeout(cause)) {
          lastCause = cause;
          if (ConnectionFailures.classify(cause).definitive()
              || (cause instanceof Gateway.EtcdError answer && answer.gatewayUnusable())) {
            break;
          }
        }
      }
      long pause = Math.min(PAUSE.toNanos(), deadline - System.nanoTime());
      if (pause > 0) {
        TimeUnit.NANOSECONDS.sleep(pause);
      }
    }
    if (last == null || isTimeout(last)) {
      throw new EtcdUnavailableException(
          "etcd did not answer "
              + what
              + " within "
              + Durations.format(bound)
              + (lastCause == null
                  ? ""
                  : " (before that: " + ConnectionFailures.describe(lastCause) + ")"),
          last);
    }
    throw new EtcdUnavailableException(
        what + " failed: " + ConnectionFailures.describe(last), last);
  }

  private static boolean isTimeout(Throwable error) {
    return error instanceof TimeoutException
        || error instanceof InterruptedIOException // SocketTimeoutException, HttpTimeoutException
        || (error instanceof EtcdUnavailableException
            && error.getCause() instanceof TimeoutException);
  }
}
