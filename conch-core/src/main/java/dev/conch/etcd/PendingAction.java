package dev.conch.etcd;

import static dev.conch.etcd.LeaseKeeper.isNotFound;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An action that must happen once etcd answers: a resign, a withdrawal, a revoke. Kept by {@link
 * EtcdSession#ensure} and tried again on every tick of its keep-alive loop until it is done.
 */
final class PendingAction {

  private static final Logger log = LoggerFactory.getLogger(PendingAction.class);

  private final String what;
  private final Supplier<CompletableFuture<?>> call;
  private final InFlight line;
  private final AtomicBoolean underWay = new AtomicBoolean();

  /** {@code call} sent in the session's {@code line} of requests ({@link InFlight}). */
  PendingAction(String what, Supplier<CompletableFuture<?>> call, InFlight line) {
    this.what = what;
    this.call = call;
    this.line = line;
  }

  /**
   * Runs it without waiting; the future tells whether it is done (succeeded, or the thing is gone)
   * once etcd answered or the timeout passed, counted from when it left the line: a session that
   * closes ten thousand offices sends their resigns a few dozen at a time, not all at once into the
   * renewals of every other session on the same etcd.
   */
  CompletableFuture<Boolean> attempt(Duration timeout) {
    return line.send(
        () -> {
          CompletableFuture<?> future;
          try {
            future = call.get();
          } catch (RuntimeException e) {
            // jetcd throws directly when the client is closed: then nothing is left to retry with.
            log.warn("{} failed: {}", what, EtcdCalls.describe(e));
            return CompletableFuture.completedFuture(true);
          }
          return future
              .orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
              .handle(
                  (result, error) -> {
                    if (error == null || isNotFound(error)) {
                      return true;
                    }
                    log.debug("{} failed, will retry: {}", what, EtcdCalls.describe(error));
                    return false;
                  });
        });
  }

  /** Runs it without waiting, unless it is under way; {@code done} runs once it is done. */
  void launch(Duration timeout, Runnable done) {
    if (!underWay.compareAndSet(false, true)) {
      return;
    }
    attempt(timeout)
        .thenAccept(
            finished -> {
              underWay.set(false);
              if (finished) {
                done.run();
              }
            });
  }
}
