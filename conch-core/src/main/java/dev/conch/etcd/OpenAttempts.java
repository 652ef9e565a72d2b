package dev.conch.etcd;

import dev.conch.Durations;
import dev.conch.EtcdUnavailableException;
import dev.conch.Ticker;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * The attempts of one kind of request that the lease keeper sent and that may still be answered.
 *
 * <p>An attempt that is not answered in time is not given up: it stays open until etcd answers it
 * or its gRPC deadline ends it, and the keeper sends another beside it (to the next member,
 * round-robin). Whichever is answered first counts, by its own send time. After an etcd raft leader
 * change the members answer again once the new leader's lessor is promoted: an attempt abandoned
 * just before would have been answered then, and with overlapping attempts there is always one
 * waiting for that moment. A paused member holds only the attempts sent to it, not the others.
 *
 * <p>Used by the keeper's thread only.
 *
 * @param <T> the answer
 */
final class OpenAttempts<T> {

  /** An attempt: when it was sent, and its answer. */
  record Attempt<T>(long sentAt, CompletableFuture<T> answer) {}

  /** An answered attempt: when it was sent, and what etcd said. */
  record Answer<T>(long sentAt, T value) {}

  private final Ticker ticker;
  private final String what;
  private final Predicate<Throwable> isFinal;
  private final Deque<Attempt<T>> open = new ArrayDeque<>();
  private boolean answered;
  private long newestAnswered;

  /**
   * @param what the request in words, for messages ("lease renewal")
   * @param isFinal which failures end the wait at once, whatever else is open (a lease not found)
   */
  OpenAttempts(Ticker ticker, String what, Predicate<Throwable> isFinal) {
    this.ticker = ticker;
    this.what = what;
    this.isFinal = isFinal;
  }

  /** Adds an attempt sent at {@code sentAt}. */
  void add(long sentAt, CompletableFuture<T> answer) {
    open.addLast(new Attempt<>(sentAt, answer));
  }

  /** How many attempts are open. */
  int size() {
    return open.size();
  }

  /**
   * The failure of a wait of {@code wait} in all (made of shorter ones) that nothing answered in
   * time, {@code last} being the failure of its last part.
   */
  EtcdUnavailableException timedOut(Duration wait, EtcdUnavailableException last) {
    return timedOut(wait, last.getCause());
  }

  private EtcdUnavailableException timedOut(Duration wait, @Nullable Throwable cause) {
    return new EtcdUnavailableException(
        "etcd did not answer "
            + what
            + " within "
            + Durations.format(wait)
            + (open.size() > 1 ? " (" + open.size() + " attempts open)" : ""),
        cause);
  }

  /** Forgets every open attempt (their answers no longer matter: a lease given up). */
  void clear() {
    open.clear();
  }

  /**
   * Waits, at most {@code wait}, until an attempt is answered and no attempt sent after it is still
   * open: the round's own attempt, or, when that one failed, the newest one that did not. Every
   * answer on the way is passed to {@code onAnswer} in the order the attempts were sent, each newer
   * than any passed before (an older answer after a newer one moves nothing back, and is dropped
   * with the attempts older than it), so that an answer counts as soon as it comes, even in a round
   * that then times out.
   *
   * @throws EtcdUnavailableException when that does not happen within {@code wait} (its cause a
   *     {@link TimeoutException}), or every open attempt failed, or a {@linkplain #OpenAttempts
   *     final} failure came: naming the last error
   */
  void await(Duration wait, Consumer<Answer<T>> onAnswer) throws InterruptedException {
    assert CallThreads.notHere(what);
    long until = ticker.nanoTime() + Math.max(1, wait.toNanos());
    boolean answeredNow = false;
    @Nullable Throwable lastError = null;
    while (true) {
      for (Iterator<Attempt<T>> it = open.iterator(); it.hasNext(); ) {
        Attempt<T> attempt = it.next();
        if (answered && attempt.sentAt() - newestAnswered <= 0) {
          it.remove(); // older than an answer already counted: it can tell nothing new
          continue;
        }
        if (!attempt.answer().isDone()) {
          continue;
        }
        it.remove();
        try {
          T value = attempt.answer().getNow(null);
          answered = true;
          newestAnswered = attempt.sentAt();
          answeredNow = true;
          onAnswer.accept(new Answer<>(attempt.sentAt(), value));
        } catch (RuntimeException e) {
          Throwable cause = EtcdCalls.unwrap(e);
          if (isFinal.test(cause)) {
            throw new EtcdUnavailableException(
                what + " failed: " + EtcdCalls.describe(cause), cause);
          }
          lastError = cause;
        }
      }
      if (answeredNow && open.stream().noneMatch(a -> a.sentAt() - newestAnswered > 0)) {
        return;
      }
      if (open.isEmpty()) {
        Throwable cause = lastError == null ? new IllegalStateException("nothing sent") : lastError;
        throw new EtcdUnavailableException(what + " failed: " + EtcdCalls.describe(cause), cause);
      }
      long left = until - ticker.nanoTime();
      if (left <= 0) {
        // The cause says "timed out": the keeper then sends the next attempt at once.
        TimeoutException timedOut = new TimeoutException(what + " not answered");
        if (lastError != null) {
          timedOut.addSuppressed(lastError);
        }
        throw timedOut(wait, timedOut);
      }
      try {
        CompletableFuture.anyOf(
                open.stream().map(Attempt::answer).toArray(CompletableFuture[]::new))
            .get(left, TimeUnit.NANOSECONDS);
      } catch (ExecutionException | TimeoutException e) {
        // looked at in the next pass: which one, and how it ended
      }
    }
  }
}
