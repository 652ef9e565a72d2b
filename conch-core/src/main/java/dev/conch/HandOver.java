package dev.conch;

import dev.conch.FencedLock.Grant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A named hand-over ({@link Election#transfer(String)}), the same for every store: which keys it
 * deletes, checked against one read of the office's line before anything changes ({@link #plan}),
 * and the release that carries it out once the lose hooks ran ({@link #carryOut}).
 *
 * <p>The line may change while the lose hooks run (a candidate leaves, joins at the back, or the
 * target queues again with a new key). The store's compares then fail and nothing is changed; the
 * line is read once more and the hand-over tried once more with what it says now. If the target is
 * gone by then, or a key that cannot cooperate now stands between, or the second try fails too, the
 * office is released plainly, as a resign would: the work has stopped already, and a leader that
 * kept its key now would hold an office it no longer works for.
 */
final class HandOver {

  private static final Logger log = LoggerFactory.getLogger(FencedElection.class);

  /** etcd's default {@code --max-txn-ops}. */
  static final int ETCD_MAX_TXN_OPS = 128;

  /**
   * The most candidates that may stand between with etcd's default limit. etcd refuses a
   * transaction whose compares, or whose operations of either branch, number more than its {@code
   * --max-txn-ops} ({@code checkTxnRequest}: the largest of the three counts, not their sum); a
   * hand-over past n candidates compares n + 2 keys (the leader's, theirs, the target's), deletes n
   * + 1 and writes the term's end into the office's history (a put and a trim), so its n + 3
   * operations are what must fit.
   */
  static final int MAX_BETWEEN = maxBetween(ETCD_MAX_TXN_OPS);

  /**
   * How many operations a hand-over past {@code between} candidates has in its transaction: its
   * compares and its deletes, and the history's two writes.
   */
  static int operations(int between) {
    return between + 3;
  }

  /** The most candidates that may stand between when a transaction takes {@code maxTxnOps}. */
  static int maxBetween(int maxTxnOps) {
    return maxTxnOps - 3;
  }

  /** Whom to hand over to, and whose keys go with the leader's. */
  record Plan(String targetId, Holder target, List<Holder> between) {

    Plan {
      between = List.copyOf(between);
    }
  }

  private HandOver() {}

  /**
   * What a hand-over from {@code leader} to the candidate {@code targetId} deletes, given the line.
   *
   * @throws NotLeaderException when {@code leader}'s key is not first in line
   * @throws TransferRefusedException when the target is not a live candidate other than the leader,
   *     or a key that is not conch's stands between, or too many candidates do for etcd's default
   *     {@code --max-txn-ops}
   */
  static Plan plan(Holder leader, List<Holder> line, String targetId) {
    return plan(leader, line, targetId, ETCD_MAX_TXN_OPS);
  }

  /**
   * As {@link #plan(Holder, List, String)}, for a store that takes at most {@code maxTxnOps}
   * compares in one transaction ({@link FencedLock#maxTxnOps()}): a hand-over it would refuse is
   * refused here, before the term ends, so that the refusal changes nothing.
   */
  static Plan plan(Holder leader, List<Holder> line, String targetId, int maxTxnOps) {
    return plan(leader, line, List.of(targetId), maxTxnOps);
  }

  /**
   * As {@link #plan(Holder, List, String, int)}, to whichever of {@code targetIds} stands first in
   * the line behind the leader: the fewest candidates are passed.
   */
  static Plan plan(Holder leader, List<Holder> line, List<String> targetIds, int maxTxnOps) {
    String office = leader.office();
    String targets = String.join("' or '", targetIds);
    if (line.isEmpty() || line.get(0).rev() != leader.rev()) {
      throw new NotLeaderException(office);
    }
    if (targetIds.size() == 1 && targetIds.get(0).equals(leader.id())) {
      throw new TransferRefusedException(
          office, targets, "that is this candidate, the leader; " + live(line));
    }
    int at = -1;
    String targetId = null;
    for (int i = 1; i < line.size(); i++) {
      Holder h = line.get(i);
      String id = h.id();
      if (h.isConch() && id != null && targetIds.contains(id) && !id.equals(leader.id())) {
        at = i;
        targetId = id;
        break;
      }
    }
    if (targetId == null) {
      throw new TransferRefusedException(
          office,
          targets,
          (targetIds.size() == 1 ? "not a live candidate" : "none is a live candidate")
              + " of the office; "
              + live(line));
    }
    List<Holder> between = line.subList(1, at);
    for (Holder h : between) {
      if (!h.isConch()) {
        throw new TransferRefusedException(
            office,
            targetId,
            "a key not written by conch stands between this leader and the target (value '"
                + h.raw()
                + "', lease "
                + h.leaseHex()
                + ", create revision "
                + h.rev()
                + "; an etcdctl elect proposal?): it would not notice that its key was deleted"
                + " and would believe it leads beside the target; nothing was changed");
      }
    }
    if (between.size() > maxBetween(maxTxnOps)) {
      throw new TransferRefusedException(
          office,
          targetId,
          between.size()
              + " candidates stand between this leader and the target: the hand-over would"
              + " take "
              + operations(between.size())
              + " operations in one transaction, and the store takes at most "
              + maxTxnOps
              + (maxTxnOps == ETCD_MAX_TXN_OPS
                  ? " (etcd's default --max-txn-ops)"
                  : " (etcd's --max-txn-ops, as it refused larger transactions)")
              + ", so at most "
              + Math.max(0, maxBetween(maxTxnOps))
              + " can be passed; nothing was changed");
    }
    return new Plan(targetId, line.get(at), new ArrayList<>(between));
  }

  private static String live(List<Holder> line) {
    List<String> ids = new ArrayList<>();
    for (int i = 1; i < line.size(); i++) {
      Holder h = line.get(i);
      ids.add(h.isConch() ? h.id() : "(a key not written by conch, rev " + h.rev() + ")");
    }
    return ids.isEmpty()
        ? "no other candidate is in line; nothing was changed"
        : "the candidates in line behind this leader are " + ids + "; nothing was changed";
  }

  /**
   * Releases {@code grant} by handing the office over as {@code plan} says, or, when the line
   * changed, as it says when read again, at most once more; else plainly. Never fails: the returned
   * future completes once the grant is released one way or the other.
   */
  static CompletableFuture<Void> carryOut(FencedLock lock, Grant grant, Plan plan) {
    return attempt(lock, grant, plan, true);
  }

  private static CompletableFuture<Void> attempt(
      FencedLock lock, Grant grant, Plan plan, boolean mayRetry) {
    String office = lock.office();
    Holder leader = grant.leadership().holder();
    return call(() -> lock.handOver(grant, plan.target(), plan.between()))
        .handle(
            (done, error) -> {
              if (error != null) {
                log.warn(
                    "office {}: hand-over to '{}' failed ({}); releasing plainly",
                    office,
                    plan.targetId(),
                    describe(error));
                return release(lock, grant, plan, describe(error));
              }
              if (done) {
                log.info(
                    "office {}: handed over to '{}' (token {}), past {}",
                    office,
                    plan.targetId(),
                    plan.target().rev(),
                    plan.between().stream().map(Holder::id).toList());
                return CompletableFuture.<Void>completedFuture(null);
              }
              if (!mayRetry) {
                log.warn(
                    "office {}: the line changed again while handing over to '{}'; releasing"
                        + " plainly",
                    office,
                    plan.targetId());
                return release(lock, grant, plan, "the line changed again");
              }
              return call(lock::candidates)
                  .handle((line, failed) -> again(lock, grant, leader, plan, line, failed))
                  .thenCompose(next -> next);
            })
        .thenCompose(next -> next);
  }

  /** The line changed while the lose hooks ran: once more with what it says now, or plainly. */
  private static CompletableFuture<Void> again(
      FencedLock lock, Grant grant, Holder leader, Plan plan, List<Holder> line, Throwable failed) {
    String office = lock.office();
    if (failed != null) {
      log.warn(
          "office {}: could not read the line again to hand over to '{}' ({}); releasing plainly",
          office,
          plan.targetId(),
          describe(failed));
      return release(lock, grant, plan, "the line could not be read again");
    }
    Plan next;
    try {
      next = plan(leader, line, plan.targetId(), lock.maxTxnOps());
    } catch (ConchException e) {
      log.warn(
          "office {}: the line changed while the lose hooks ran and the hand-over cannot go on"
              + " ({}); releasing plainly",
          office,
          e.getMessage());
      return release(lock, grant, plan, "the line changed: " + e.getMessage());
    }
    log.info(
        "office {}: the line changed while the lose hooks ran; handing over to '{}' with the line"
            + " as it is now",
        office,
        plan.targetId());
    return attempt(lock, grant, next, false);
  }

  /**
   * Releases plainly, the office's history saying so: the term still ended as a transfer, but to
   * the next in line, not to the target.
   */
  private static CompletableFuture<Void> release(
      FencedLock lock, Grant grant, Plan plan, String why) {
    grant.ending(
        LossReason.TRANSFERRED,
        "the hand-over to '" + plan.targetId() + "' was not made (" + why + "); released plainly");
    return call(() -> lock.release(grant)).exceptionally(e -> null);
  }

  private static <T> CompletableFuture<T> call(Supplier<CompletableFuture<T>> call) {
    try {
      return call.get();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private static String describe(Throwable error) {
    Throwable cause =
        error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    return Optional.ofNullable(cause.getMessage()).orElse(cause.toString());
  }
}
