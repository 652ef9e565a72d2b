package dev.conch.spring.boot.metrics;

import dev.conch.Election;
import dev.conch.State;
import dev.conch.Ticker;
import java.util.EnumSet;
import java.util.Set;

/**
 * How long one office has been without a leader as this instance saw it, and for how long in all:
 * the values of {@code conch.office.leaderless} and {@code conch.office.leaderless.observed}, on a
 * monotonic clock.
 *
 * <p>A vacancy begins when the instance sees nobody lead (a {@code LeaderObservedEvent} with no
 * leader) or its own term end without leaving the election (lost, transferred): the core tells a
 * candidate who leads when it queues, not that its own term's end left the office without one. It
 * ends with the next leader the instance sees, or its own next term. Only a candidate in the
 * election sees the office: once it has left (resigned, denied by its gate, closed) the vacancy it
 * was counting ends. No event says that a candidate which was not leading left, so its state is
 * read with the meters, and the vacancy ends when it was last known to be in the election: at the
 * read or event before.
 */
final class Vacancy {

  /** The states in which the candidate no longer looks at the office. */
  private static final Set<State> LEFT = EnumSet.of(State.RESIGNED, State.DENIED, State.CLOSED);

  private static final double NANOS_PER_SECOND = 1e9;

  private final Election election;

  private final Ticker ticker;

  // Guarded by this: when the vacancy in progress began (-1: none), when the candidate was last
  // known to be in the election during it, and the vacancies that ended.
  private long since = -1;

  private long seenIn;

  private long ended;

  Vacancy(Election election, Ticker ticker) {
    this.election = election;
    this.ticker = ticker;
  }

  /** The office is without a leader from now on, unless a vacancy already goes on. */
  synchronized void began() {
    long now = this.ticker.nanoTime();
    settle(now);
    if (this.since < 0 && inElection()) {
      this.since = now;
      this.seenIn = now;
    }
  }

  /** The office has a leader, or the candidate left the election: the vacancy, if any, is over. */
  synchronized void ended() {
    long now = this.ticker.nanoTime();
    settle(now);
    end(now);
  }

  /** Seconds the vacancy in progress has lasted; 0 when there is none. */
  synchronized double seconds() {
    long now = this.ticker.nanoTime();
    settle(now);
    return (this.since < 0) ? 0 : (now - this.since) / NANOS_PER_SECOND;
  }

  /** Seconds of every vacancy seen, the one in progress included: it only grows. */
  synchronized double totalSeconds() {
    long now = this.ticker.nanoTime();
    settle(now);
    long current = (this.since < 0) ? 0 : now - this.since;
    return (this.ended + current) / NANOS_PER_SECOND;
  }

  /**
   * Notes that the candidate is still in the election, or ends the vacancy of one that has left
   * when it was last known to be in it: what it did not see is not counted.
   */
  private void settle(long now) {
    if (this.since < 0) {
      return;
    }
    if (inElection()) {
      this.seenIn = now;
    } else {
      end(this.seenIn);
    }
  }

  private void end(long now) {
    if (this.since >= 0) {
      this.ended += now - this.since;
      this.since = -1;
    }
  }

  private boolean inElection() {
    return !LEFT.contains(this.election.state());
  }
}
