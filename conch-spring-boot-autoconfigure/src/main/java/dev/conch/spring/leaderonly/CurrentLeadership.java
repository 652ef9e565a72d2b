package dev.conch.spring.leaderonly;

import dev.conch.Election;
import dev.conch.Leadership;
import dev.conch.NotLeaderException;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;

/**
 * The term of leadership a running {@link LeaderOnly @LeaderOnly} method was let in by, on the
 * thread that runs it (pass the {@link Leadership} on to other threads yourself).
 *
 * <pre>{@code
 * Leadership term = CurrentLeadership.get();
 * term.token();       // the fencing token: carry it on writes to any store that keeps the highest
 * term.isValid();     // false once the term ended (or is about to): stop, a successor may start
 * CurrentLeadership.guardedPut(key, value);  // an etcd write fenced by this term
 * }</pre>
 *
 * <p>A unit test of such code needs no Spring: {@link #callAsLeader} runs it as a
 * {@code @LeaderOnly} method would run, in the current term of an election (e.g. one of
 * conch-core's in-memory {@code LocalOffices}).
 */
public final class CurrentLeadership {

  private static final ThreadLocal<Invocation> current = new ThreadLocal<>();

  private CurrentLeadership() {}

  /** The term of the running {@code @LeaderOnly} method on this thread, if one runs. */
  public static Optional<Leadership> find() {
    Invocation invocation = current.get();
    return (invocation != null) ? Optional.of(invocation.leadership()) : Optional.empty();
  }

  /**
   * The term of the running {@code @LeaderOnly} method on this thread.
   *
   * @throws IllegalStateException outside a {@code @LeaderOnly} method
   */
  public static Leadership get() {
    return running().leadership();
  }

  private static Invocation running() {
    // ThreadLocal.get is null on a thread where nothing was set: NullAway's models do not say so.
    @Nullable Invocation invocation = current.get();
    if (invocation == null) {
      throw new IllegalStateException(
          "No @LeaderOnly method runs on thread '"
              + Thread.currentThread().getName()
              + "': CurrentLeadership is set only while one does");
    }
    return invocation;
  }

  /**
   * Writes {@code value} at {@code key} in etcd only if the term of the running {@code @LeaderOnly}
   * method still holds: its term is valid, it is the election's current term, and etcd still has
   * the leader's key with this term's token.
   *
   * @return whether the write happened
   * @throws NotLeaderException when the term ended (a later term of this instance does not count)
   * @throws IllegalStateException outside a {@code @LeaderOnly} method
   */
  public static boolean guardedPut(String key, String value) {
    Invocation invocation = running();
    Leadership term = invocation.leadership();
    Election election = invocation.election();
    boolean sameTerm =
        term.isValid()
            && election.token().isPresent()
            && election.token().getAsLong() == term.token();
    if (!sameTerm) {
      throw new NotLeaderException(term.office());
    }
    return election.guardedPut(key, value);
  }

  /**
   * Calls {@code call} on this thread as a {@code @LeaderOnly} method runs: {@link #get()} is the
   * current term of {@code election} and {@link #guardedPut} writes through it, until {@code call}
   * returns. For unit tests of code that uses this class, and for code that does leader-only work
   * without the annotation.
   *
   * <pre>{@code
   * LocalOffices offices = new LocalOffices();
   * Election election = offices.election(ElectionOptions.builder("invoices").build());
   * election.start();
   * election.awaitLeadership(Duration.ofSeconds(5));
   * CurrentLeadership.callAsLeader(election, () -> job.sendInvoices());
   * }</pre>
   *
   * @return what {@code call} returned
   * @throws NotLeaderException when {@code election} does not lead now; {@code call} is not called
   * @throws Exception what {@code call} threw
   */
  public static <T> T callAsLeader(Election election, Callable<T> call) throws Exception {
    Leadership term =
        election.leadership().orElseThrow(() -> new NotLeaderException(election.office()));
    Invocation previous = enter(election, term);
    try {
      return call.call();
    } finally {
      exit(previous);
    }
  }

  /** Sets the term for the duration of one invocation; returns what to restore after it. */
  static Invocation enter(Election election, Leadership leadership) {
    Invocation previous = current.get();
    current.set(new Invocation(election, leadership));
    return previous;
  }

  /** Restores what {@link #enter} returned. */
  static void exit(Invocation previous) {
    if (previous == null) {
      current.remove();
    } else {
      current.set(previous);
    }
  }

  record Invocation(Election election, Leadership leadership) {}
}
