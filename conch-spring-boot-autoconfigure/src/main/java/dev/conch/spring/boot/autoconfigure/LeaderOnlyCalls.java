package dev.conch.spring.boot.autoconfigure;

import dev.conch.Leadership;
import dev.conch.spring.LeaderOnlyInvocations;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * How many {@code @LeaderOnly} calls and {@code LeaderOnlyTasks} tasks of each office are running:
 * the group moves an office only while none is ({@link #idle}). Told of each call as every {@link
 * LeaderOnlyInvocations} bean is.
 *
 * <p>The group asks just before a move; a call that starts after that answer runs in a term that is
 * about to end, as it would on a resign, and finds out through {@code term.isValid()} and its
 * fenced writes.
 */
final class LeaderOnlyCalls implements LeaderOnlyInvocations {

  private final Map<String, AtomicInteger> running = new ConcurrentHashMap<>();

  @Override
  public @Nullable Object proceed(Leadership leadership, String method, Call call)
      throws Throwable {
    AtomicInteger calls =
        this.running.computeIfAbsent(leadership.office(), office -> new AtomicInteger());
    calls.incrementAndGet();
    try {
      return call.proceed();
    } finally {
      calls.decrementAndGet();
    }
  }

  /** Whether no {@code @LeaderOnly} call of {@code office} is running now. */
  boolean idle(String office) {
    AtomicInteger calls = this.running.get(office);
    return calls == null || calls.get() == 0;
  }
}
