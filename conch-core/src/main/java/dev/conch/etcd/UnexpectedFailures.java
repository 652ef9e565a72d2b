package dev.conch.etcd;

import dev.conch.EtcdUnavailableException;
import io.etcd.jetcd.common.exception.ClosedClientException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;

/**
 * What the lease keeper's thread does with a failure it did not expect (a bug, a throwing listener,
 * a client that cannot be built): it logs it once per kind, so that a failure in every round does
 * not flood the log, and goes on. It also tells a jetcd client that was closed for good, which
 * fails every call at once and can never answer again, from an etcd that is away.
 */
final class UnexpectedFailures {

  private final Logger log;
  private final Set<String> logged = ConcurrentHashMap.newKeySet();

  UnexpectedFailures(Logger log) {
    this.log = log;
  }

  /** Logs {@code error} with its stack the first time one of its kind comes by ({@code where}). */
  void report(String where, Throwable error) {
    String kind = where + ": " + error.getClass().getName();
    if (logged.add(kind)) {
      log.error("{} failed unexpectedly (logged once per kind)", where, error);
    } else {
      log.debug("{} failed unexpectedly again: {}", where, error.toString());
    }
  }

  /**
   * Whether {@code error} says the jetcd client is closed: its executors reject every task, its
   * channel is shut down. jetcd 0.8.7 reports a call on a closed client in these ways.
   */
  static boolean isClientClosed(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof ClosedClientException || t instanceof RejectedExecutionException) {
        return true;
      }
      String message = t.getMessage();
      if (!(t instanceof EtcdUnavailableException)
          && message != null
          && (message.contains("Channel shutdown invoked")
              || message.contains("Channel shutdownNow invoked"))) {
        return true;
      }
      if (t.getCause() == t) {
        return false;
      }
    }
    return false;
  }
}
