package dev.conch;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

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
   * Reports a failed campaign whose cause is the store's rather than the office's (etcd's session
   * could not get the lease every office of it waits for), so that it is said once for all the
   * offices it failed rather than once per office; returns whether it did. When it did not, the
   * election logs the failure itself.
   */
  default boolean reportCampaignFailure(Throwable failure) {
    return false;
  }

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
   * The office's line, read once from the store: every key of its election in the order of their
   * create revisions, the leader first. A key conch did not write (an {@code etcdctl elect}
   * proposal) is a holder that is not {@linkplain Holder#isConch() conch's}.
   *
   * @return the line, or a failure ({@link EtcdUnavailableException}) when the store cannot be read
   *     in time
   */
  CompletableFuture<List<Holder>> candidates();

  /**
   * Hands the office from {@code grant} to {@code target} in one atomic step that only the grant's
   * own key can make succeed: if the grant's key, every key of {@code between} and the target's key
   * still have the create revisions given, the grant's key and the keys of {@code between} are
   * deleted together, so that the target is first and wins; else nothing changes. Never waits.
   *
   * @param target a conch candidate behind the grant's key
   * @param between the candidates in line between the grant's key and the target's, in order
   * @return true once done (the grant is released, as by {@link #release}); false when the line is
   *     no longer as given (nothing changed: the grant is still to be released); a failure when the
   *     store could not be reached (it may or may not have happened: release the grant)
   */
  CompletableFuture<Boolean> handOver(Grant grant, Holder target, List<Holder> between);

  /**
   * The most compares, and the most operations, the store takes in one transaction: a {@link
   * #handOver} past {@code n} candidates compares {@code n + 2} keys. For etcd its {@code
   * --max-txn-ops}: 128 by default, less once etcd refused a transaction of this session as too
   * large (learned, never asked). 128 here, so that every store refuses what etcd's default would.
   */
  default int maxTxnOps() {
    return 128;
  }

  /**
   * Writes {@code value} at {@code key} only if the grant's key still has the grant's token.
   *
   * @return whether the write happened
   * @throws EtcdUnavailableException when the store cannot be reached in time
   */
  boolean guardedPut(Grant grant, String key, String value);

  /**
   * The office's last {@code limit} terms, oldest first (DESIGN.md, "The flight recorder"); empty
   * when the store keeps no history, or the office never had a recorded term.
   *
   * @return the terms, or a failure ({@link EtcdUnavailableException}) when the store cannot be
   *     read in time
   */
  default CompletableFuture<List<TermRecord>> history(int limit) {
    return CompletableFuture.completedFuture(List.of());
  }

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

    /**
     * Tells the grant how its term ended, before it is released or handed over: the store records
     * it in the office's history with the release (DESIGN.md, "The flight recorder"). A store that
     * keeps no history ignores it.
     *
     * @param reason how the term ended
     * @param detail what ended it, in words (who asked, to whom, which error), or {@code null}
     */
    default void ending(LossReason reason, @Nullable String detail) {}
  }
}
