package dev.conch;

import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Why a term of leadership ends, from facts first: what the store says, then the deadline, and only
 * then what was asked for. A resign or a failed acquire that races a deleted key or a passed
 * deadline is therefore reported as the involuntary loss it also is, so that work stops at once
 * when a successor may already lead. The same facts keep counting while the lose hooks run ({@link
 * #upgrade}), and an involuntary loss bounds them by the lease deadline ({@link #boundByDeadline}).
 */
final class LossRule {

  private LossRule() {}

  /**
   * The reason a term ends now, or null while it holds.
   *
   * @param storeEnded what the store says ended the grant (key deleted, lease gone), if anything
   * @param requested what this candidate asked for (resign, transfer, close, a failed acquire), or
   *     null
   * @param now the {@link Ticker} time now
   * @param validUntil the grant's deadline D: the store cannot have given the office away before
   * @param lossLead how long before D leadership is dropped (stop timeout plus safety margin)
   */
  static @Nullable LossReason decide(
      Optional<LossReason> storeEnded,
      @Nullable LossReason requested,
      long now,
      long validUntil,
      long lossLead) {
    if (storeEnded.isPresent()) {
      return storeEnded.get();
    }
    if (now - validUntil >= 0) {
      // The deadline itself passed before we could act (a frozen or starved process, a renewal
      // failure noticed late): the lease may be gone and a successor may lead already.
      return LossReason.LEASE_EXPIRED;
    }
    if (requested != null) {
      return requested;
    }
    return now - (validUntil - lossLead) >= 0 ? LossReason.RENEWAL_FAILED : null;
  }

  /**
   * The reason a stop under way for {@code current} continues with, once {@code facts} (what {@link
   * #decide} says with nothing asked for, or null) are known: the facts when they are worse.
   */
  static LossReason upgrade(LossReason current, LossReason facts) {
    return facts != null && rank(facts) > rank(current) ? facts : current;
  }

  /**
   * Whether a stop for {@code why} keeps to a stop deadline: the key may go without us (renewal
   * failed, or a successor may lead already). After a resign, transfer, close or a failed acquire
   * the key is deleted only after the lose hooks ran.
   */
  static boolean boundByDeadline(LossReason why) {
    return rank(why) > 0;
  }

  private static int rank(LossReason why) {
    if (why.successorMayLead()) {
      return 2;
    }
    return why.isVoluntary() || why == LossReason.ACQUIRE_FAILED ? 0 : 1;
  }
}
