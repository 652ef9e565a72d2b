package dev.conch;

/**
 * Acquire and lose hooks, run synchronously on the transition by the election itself.
 *
 * <p>{@link #acquired} runs after the candidate won and before it reports {@link State#LEADING}; it
 * is bounded by the hook timeout, and if it throws or times out the candidate resigns, backs off
 * and campaigns again. {@link #lost} runs when leadership ends for any reason, before the lease
 * could expire: this is where work is stopped. Its failures are logged and never block.
 */
public interface LeadershipHandler {

  /** Starts the work of a leader. Throwing means: do not lead now. */
  default void acquired(Leadership leadership) throws Exception {}

  /**
   * Stops the work of a leader; called once for each call of {@link #acquired}, also one that
   * failed, timed out or was cut short by the end of the term, so that whatever it began stops.
   */
  default void lost(Leadership leadership, LossReason reason) throws Exception {}
}
