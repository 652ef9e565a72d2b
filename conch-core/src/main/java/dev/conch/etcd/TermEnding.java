package dev.conch.etcd;

import dev.conch.ElectionEvent;
import dev.conch.ElectionListener;
import dev.conch.State;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * How the term of {@code token} ended, as the election's events tell: a {@link GroupMove} listens
 * with one while it hands an office over.
 */
final class TermEnding implements ElectionListener {

  private final long token;
  private @Nullable State end;
  private long events;

  TermEnding(long token) {
    this.token = token;
  }

  @Override
  public synchronized void onEvent(ElectionEvent event) {
    if (end == null) {
      if (event instanceof ElectionEvent.Transferred t && t.token() == token) {
        end = State.TRANSFERRED;
      } else if (event instanceof ElectionEvent.Lost l && l.token() == token) {
        end = State.LOST;
      } else if (event instanceof ElectionEvent.Resigned r && r.token() == token) {
        end = State.RESIGNED;
      }
    }
    events++;
    notifyAll();
  }

  synchronized @Nullable State awaitEnd(long deadline) throws InterruptedException {
    long left;
    while (end == null && (left = deadline - System.nanoTime()) > 0) {
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return end;
  }

  /** Waits for the next event of the election, at most until {@code deadline} or 100 ms. */
  synchronized void awaitEvent(long deadline) throws InterruptedException {
    long seen = events;
    long until = Math.min(deadline, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100));
    long left;
    while (events == seen && (left = until - System.nanoTime()) > 0) {
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
  }
}
