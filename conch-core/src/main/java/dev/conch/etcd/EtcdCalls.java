package dev.conch.etcd;

import dev.conch.Durations;
import dev.conch.EtcdUnavailableException;
import io.etcd.jetcd.ByteSequence;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Waits on jetcd's futures, always with a timeout (jetcd has none of its own and waits for the
 * channel forever), and turns every failure into one {@link EtcdUnavailableException}: the one
 * place where {@link ExecutionException} is unwrapped.
 */
final class EtcdCalls {

  private EtcdCalls() {}

  /** Waits for {@code call}; an interrupt is passed on to the caller. */
  static <T> T await(CompletableFuture<T> call, Duration timeout, String what)
      throws InterruptedException {
    assert CallThreads.notHere(what);
    try {
      return call.get(Math.max(1, timeout.toNanos()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      call.cancel(true);
      throw new EtcdUnavailableException(
          "etcd did not answer " + what + " within " + Durations.format(timeout), e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      throw new EtcdUnavailableException(what + " failed: " + describe(cause), cause);
    } catch (InterruptedException e) {
      call.cancel(true);
      throw e;
    }
  }

  /**
   * {@code call} bounded by {@code timeout}, without waiting: it fails with the same {@link
   * EtcdUnavailableException} {@link #await} throws.
   */
  static <T> CompletableFuture<T> within(CompletableFuture<T> call, Duration timeout, String what) {
    CompletableFuture<T> answer = new CompletableFuture<>();
    call.orTimeout(Math.max(1, timeout.toNanos()), TimeUnit.NANOSECONDS)
        .whenComplete(
            (value, error) -> {
              if (error == null) {
                answer.complete(value);
                return;
              }
              Throwable cause = unwrap(error);
              answer.completeExceptionally(
                  cause instanceof TimeoutException
                      ? new EtcdUnavailableException(
                          "etcd did not answer " + what + " within " + Durations.format(timeout),
                          cause)
                      : new EtcdUnavailableException(what + " failed: " + describe(cause), cause));
            });
    return answer;
  }

  /** The failure inside a {@link java.util.concurrent.CompletionException}, or itself. */
  static Throwable unwrap(Throwable error) {
    Throwable cause = error;
    while ((cause instanceof java.util.concurrent.CompletionException
            || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }

  /** Waits for {@code call} where the caller cannot be interrupted: an interrupt is kept set. */
  static <T> T awaitUninterruptibly(CompletableFuture<T> call, Duration timeout, String what) {
    try {
      return await(call, timeout, what);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new EtcdUnavailableException(what + " was interrupted", e);
    }
  }

  /**
   * The cause of a failed call in a few words (TLS, login, refused, unknown host, or its message);
   * an exception of {@link #await} already says it, with what was asked.
   */
  static String describe(Throwable error) {
    if (error instanceof EtcdUnavailableException && error.getMessage() != null) {
      return error.getMessage();
    }
    return ConnectionFailures.describe(error);
  }

  static ByteSequence bytes(String text) {
    return ByteSequence.from(text, StandardCharsets.UTF_8);
  }

  static String text(ByteSequence bytes) {
    return bytes.toString(StandardCharsets.UTF_8);
  }
}
