package dev.conch;

import dev.conch.FencedLock.Grant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * One term of leadership, from the win to the release: it owns the grant, runs the acquire hooks,
 * holds until the term ends, runs the lose hooks of every handler whose acquire hook was called,
 * and releases the grant. Why it ends is {@link LossRule}'s to say; the election loop around it
 * decides what comes next.
 */
final class LeadershipTerm implements Leadership.Validity {

  private final FencedLock lock;
  private final Grant grant;
  private final Leadership leadership;
  private final Ticker ticker;
  private final long lossLead;
  private final Supplier<LossReason> requested;
  private final List<LeadershipHandler> started = new ArrayList<>();
  private volatile boolean over;

  /**
   * @param requested what the candidate asks for now (resign, transfer, close), or null
   */
  LeadershipTerm(
      FencedLock lock, Grant grant, Ticker ticker, long lossLead, Supplier<LossReason> requested) {
    this.lock = lock;
    this.grant = grant;
    this.ticker = ticker;
    this.lossLead = lossLead;
    this.requested = requested;
    this.leadership = grant.leadership().boundTo(this);
  }

  Leadership leadership() {
    return leadership;
  }

  /** Whether the term is not over and its deadline minus the loss lead is still ahead. */
  @Override
  public boolean isValid() {
    return !over
        && grant.ended().isEmpty()
        && ticker.nanoTime() - (grant.validUntil() - lossLead) < 0;
  }

  @Override
  public long nanosToDeadline() {
    return grant.validUntil() - ticker.nanoTime();
  }

  /**
   * Why the term ends now, with {@code asked} as what the candidate asked for; null if it holds.
   */
  LossReason endReason(LossReason asked) {
    return LossRule.decide(grant.ended(), asked, ticker.nanoTime(), grant.validUntil(), lossLead);
  }

  /** Why the term ends now, or null while it holds. */
  LossReason endReason() {
    return endReason(requested.get());
  }

  /**
   * Runs the acquire hooks in order, each bounded by the hook timeout and by the end of the term.
   *
   * @return null when every hook passed and the term still holds, else why it ends
   */
  LossReason acquire(List<LeadershipHandler> handlers, HookRunner hooks) {
    for (LeadershipHandler handler : handlers) {
      LossReason failed = hooks.acquire(handler, leadership, this::endReason, started);
      if (failed != null) {
        // Facts first: a hook that failed as the deadline passed is a loss a successor may see.
        return endReason(failed);
      }
    }
    // Whether the term still holds, from the facts alone: a term whose hooks all passed did lead
    // (its work may have run already), so a resign asked for meanwhile ends it after it began.
    return endReason(null);
  }

  /** Waits on {@code monitor} until the term ends; returns why. */
  LossReason hold(Object monitor) {
    synchronized (monitor) {
      while (true) {
        LossReason reason = endReason();
        if (reason != null) {
          return reason;
        }
        long left = grant.validUntil() - lossLead - ticker.nanoTime();
        long waitMillis = Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left) + 1, 1000));
        try {
          monitor.wait(waitMillis);
        } catch (InterruptedException e) {
          return endReason(LossReason.CLOSED);
        }
      }
    }
  }

  /**
   * Ends the term: it is no longer valid, and the lose hook of every handler whose acquire hook was
   * called runs, in reverse order.
   */
  void end(LossReason reason, HookRunner hooks) {
    over = true;
    for (int i = started.size() - 1; i >= 0; i--) {
      hooks.lose(started.get(i), leadership, reason);
    }
  }

  /** Gives the office up in the store, so that the next candidate leads at once. */
  void release() {
    lock.release(grant);
  }

  /** Writes through the store's fenced compare, if the term is still believed. */
  boolean guardedPut(String key, String value) {
    return lock.guardedPut(grant, key, value);
  }
}
