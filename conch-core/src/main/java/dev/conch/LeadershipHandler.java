package dev.conch;

/**
 * Acquire and lose hooks, run synchronously on the transition by the election itself, each on a
 * hook thread of its own, one after another.
 *
 * <p>{@link #acquired} runs after the candidate won and before it reports {@link State#LEADING}; it
 * is bounded by the hook timeout, and if it throws or times out the candidate resigns, backs off
 * and campaigns again. {@link #lost} runs as soon as the term ends, for any reason: this is where
 * work is stopped. Its failures are logged and never block. How long it may take depends on why the
 * term ended:
 *
 * <ul>
 *   <li>After a resign, transfer or close (or a failed acquire) the key is deleted only after the
 *       lose hooks returned, so no successor starts beside them; each has the hook timeout.
 *   <li>After an involuntary loss ({@link LossReason#RENEWAL_FAILED}, {@link
 *       LossReason#LEASE_EXPIRED}, {@link LossReason#KEY_DELETED}) the key may go without us. A
 *       lose hook is warned about (with its name) when it still runs after the stop timeout: its
 *       work may overlap a successor's. Nothing is waited for past the safety margin before the
 *       lease could expire: a hook still running then is interrupted and left behind (logged with
 *       its name), and the hooks whose turn comes later are all called at once and not waited for.
 *       So the work has stopped before the lease could expire only if the hooks return in time or
 *       heed the interrupt: a method that ignores interrupts cannot be stopped, and what it does
 *       runs on beside a successor. After {@code KEY_DELETED} a successor may lead at once, while
 *       the lease lives on: there the stop timeout is what bounds the overlap, and the hook timeout
 *       what bounds the wait.
 *   <li>What is learned while they run counts: a resign whose key is deleted meanwhile becomes a
 *       {@code KEY_DELETED} loss and keeps to its rules; a hook called with a reason that allowed
 *       grace is interrupted once a successor may lead.
 * </ul>
 */
public interface LeadershipHandler {

  /** Starts the work of a leader. Throwing means: do not lead now. */
  default void acquired(Leadership leadership) throws Exception {}

  /**
   * Stops the work of a leader; called once for each call of {@link #acquired}, also one that
   * failed, timed out or was cut short by the end of the term, so that whatever it began stops. An
   * interrupt means: stop now, a successor may lead (see above).
   */
  default void lost(Leadership leadership, LossReason reason) throws Exception {}
}
