package dev.conch.etcd;

import dev.conch.OfficeGroup.Member;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Whom a member of a group may give an office to now, beyond what the others publish: the view of
 * the members that {@link ShareRule} is given, with some receivers marked as not receiving.
 *
 * <ul>
 *   <li>A member that refused every office offered twice in a row (it stands in some line, but not
 *       in those) is not offered any for {@code retry}, doubled on each refusal in a row up to
 *       {@code retryMax}; at once again when its standing changes: it was out of every line and is
 *       back, or it joined anew (a new key). So a refusal is always tried again, and an idle group
 *       does not ask etcd every step. After a first refusal the giver only waits {@code retry} (the
 *       target is likely coming back into its lines one by one): leaving it out of the share at
 *       once would move offices among the others that are its share.
 *   <li>A member of higher priority than this one is not a receiver until its key is older than the
 *       hold-down, as this member saw it appear: a member that rejoins every few seconds (a crash
 *       loop) does not pull every office over on each rejoin.
 * </ul>
 *
 * <p>Not thread-safe: the group's thread alone uses it.
 */
final class GroupTargets {

  private final GroupMembership membership;
  private final long holdDown;
  private final long retry;
  private final long retryMax;
  private final Map<String, Refusal> refusals = new HashMap<>();
  private long nextChange = Long.MAX_VALUE;

  /** A member that refused: not offered anything until {@code until}, or a new standing. */
  private static final class Refusal {
    final long createRevision;
    final int strikes;
    final long until;
    boolean sawOut;

    Refusal(long createRevision, int strikes, long until) {
      this.createRevision = createRevision;
      this.strikes = strikes;
      this.until = until;
    }
  }

  /**
   * @param holdDown how long a higher-priority member's key must have existed (nanoseconds)
   * @param retry how long a member that refused is not offered anything at first (nanoseconds)
   * @param retryMax the most that grows to (nanoseconds)
   */
  GroupTargets(GroupMembership membership, long holdDown, long retry, long retryMax) {
    this.membership = membership;
    this.holdDown = holdDown;
    this.retry = retry;
    this.retryMax = retryMax;
  }

  /** The members as {@link ShareRule} is to see them now, from those seen ({@code seen}). */
  List<Member> view(List<Member> seen, int priority, long now) {
    refusals.keySet().retainAll(seen.stream().map(Member::id).toList());
    nextChange = Long.MAX_VALUE;
    List<Member> view = new ArrayList<>(seen.size());
    for (Member member : seen) {
      boolean receiving = member.receiving() && !refused(member, now);
      if (!member.self() && member.priority() > priority) {
        long age = membership.keyAge(member.id(), now);
        if (age < holdDown) {
          receiving = false;
          nextChange = Math.min(nextChange, holdDown - Math.max(0, age));
        }
      }
      view.add(
          receiving == member.receiving()
              ? member
              : new Member(
                  member.id(), member.priority(), member.leads(), member.self(), receiving));
    }
    return view;
  }

  /** In how many nanoseconds a member held down in the last {@link #view} comes out of it. */
  long nextChange() {
    return nextChange;
  }

  private boolean refused(Member member, long now) {
    Refusal refusal = refusals.get(member.id());
    if (refusal == null) {
      return false;
    }
    refusal.sawOut |= !member.receiving();
    if (refusal.createRevision != membership.createRevision(member.id())
        || refusal.sawOut && member.receiving()) {
      refusals.remove(member.id()); // a new standing: tried at once, no strikes kept
      return false;
    }
    // Past its time it is tried again; the strikes stay for the next back-off.
    return refusal.strikes >= 2 && now - refusal.until < 0;
  }

  /**
   * Every one of {@code targets} refused every office offered.
   *
   * @return how long the giver waits before it gives again (nanoseconds)
   */
  long refused(Set<String> targets, long now) {
    for (String target : targets) {
      Refusal before = refusals.get(target);
      int strikes = before == null ? 1 : Math.min(before.strikes + 1, 16);
      long wait = Math.min(retryMax, retry << Math.min(strikes - 1, 10));
      refusals.put(target, new Refusal(membership.createRevision(target), strikes, now + wait));
    }
    return retry;
  }

  /** {@code target} took an office: its refusals are forgotten. */
  void took(String target) {
    refusals.remove(target);
  }
}
