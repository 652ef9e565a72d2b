package dev.conch;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The seam between the election loop ({@link FencedElection}) and a store: the candidacies of one
 * office, in the order they joined, the first of which holds a fenced lock on the office. etcd and
 * the in-memory store implement it and pass one contract test.
 */
public interface FencedLock {

  /** The office. */
  String office();

  /**
   * Campaigns: writes this candidate's key and completes once no candidate is ahead of it. Never
   * waits: the campaign goes on as the store answers. Cancelling the returned future withdraws the
   * candidate: its key is removed (or, if it had just won, the grant is released).
   *
   * @param self this candidate
   * @param ahead told who leads while this candidate waits behind it (empty when unknown); must not
   *     block
   * @param changed run when the returned grant changes (ended, renewed); must not block
   * @return the grant of leadership, or a failure ({@link EtcdUnavailableException}, {@link
   *     ConchException}) after which the key is removed
   */
  CompletableFuture<Grant> campaign(
      Holder self, Consumer<Optional<Holder>> ahead, Runnable changed);

  /**
   * Gives the office up: deletes the key so the next candidate leads at once. Never waits: the
   * returned future completes after the first attempt; if the store could not be reached, it keeps
   * trying in the background until the key or its lease is gone.
   */
  CompletableFuture<Void> release(Grant grant);

  /**
   * Who leads the office now (the first candidacy), read from the store; empty when vacant.
   *
   * @throws EtcdUnavailableException when the store cannot be read in time
   */
  Optional<Holder> leader();

  /**
   * Writes {@code value} at {@code key} only if the grant's key still has the grant's token.
   *
   * @return whether the write happened
   * @throws EtcdUnavailableException when the store cannot be reached in time
   */
  boolean guardedPut(Grant grant, String key, String value);

  /** A held lock: valid until its deadline, or until the store says it ended. */
  interface Grant {

    /** The term of leadership this grant gives. */
    Leadership leadership();

    /**
     * The {@link Ticker} time before which the store certainly cannot have given the office to
     * anyone else: the local lease deadline D, the send time of the last acknowledged renewal plus
     * the TTL granted.
     */
    long validUntil();

    /** Why the store ended the grant (key deleted, lease gone), or empty while it holds. */
    Optional<LossReason> ended();
  }
}
