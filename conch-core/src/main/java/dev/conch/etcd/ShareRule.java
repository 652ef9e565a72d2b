package dev.conch.etcd;

import dev.conch.OfficeGroup.Member;
import dev.conch.OfficeGroup.Reason;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What one member of a group gives away next, from what it sees: a pure function, so that the
 * group's thread only gathers facts and carries the move out. Each member decides only about the
 * offices it leads, so two members' decisions never conflict.
 *
 * <ul>
 *   <li>Only receivers are given offices, and only they count: a member that stands in no line of
 *       the group's offices (health-paused, backing off) cannot take one. The caller marks as not
 *       receiving also the members it must not give to now (one that refused lately, a member of
 *       higher priority still held down), so that sharing falls back to the highest priority that
 *       can receive.
 *   <li>Eligible are the receivers of the highest priority among them. A member below it gives away
 *       each office it leads once the term lasted the minimum tenure ({@link Reason#PRIORITY}):
 *       priority first, each eligible member its part of them.
 *   <li>An eligible member gives offices away when it leads at least two more than the eligible
 *       member that leads fewest ({@link Reason#SHARE}): then the share, as many to each receiver
 *       as its matches with them ({@link #slots}). Within one of each other, nothing moves
 *       (sticky), and the end state has the eligible members within one of each other, whatever is
 *       led outside the group.
 * </ul>
 *
 * A plan names the targets and how many each may take; each office goes to whichever of those still
 * owed one stands first in its line ({@link dev.conch.Election#transferToFirst}), so that a
 * hand-over passes the fewest candidates (each passed one queues again), and a target that is no
 * candidate of an office is passed over for it.
 *
 * <p>It converges: once the counts are quiet (they show every hand-over made), every giver gives to
 * a member it leads at least two more than, and at most half the difference, so the sum of the
 * squares of the counts drops with each move, and while the share is uneven the member that leads
 * most has a move. While counts are moving, the fair floor holds givers back instead (see {@link
 * #slots}).
 */
final class ShareRule {

  private static final Comparator<Member> FEWEST_FIRST =
      Comparator.comparingInt(Member::leads).thenComparing(Member::id);

  private static final Comparator<Member> MOST_FIRST =
      Comparator.comparingInt(Member::leads).reversed().thenComparing(Member::id);

  private ShareRule() {}

  /**
   * An office this member leads.
   *
   * @param name the office
   * @param heldNanos how long the current term has lasted
   * @param canMove whether its work can stop now
   */
  record Office(String name, long heldNanos, boolean canMove) {}

  /**
   * What to try: offices of {@code offices}, in order, all to the first target of {@code targets}
   * that takes one (the others are tried in order until one does), as many as {@code counts} says
   * for that target.
   *
   * @param offices the offices to give away, in the order to try them
   * @param targets the members to give them to, in the order to try them
   * @param reason why
   * @param counts how many to give each target at most (at least one), in the order of {@code
   *     targets}
   */
  record Plan(List<String> offices, List<String> targets, Reason reason, List<Integer> counts) {

    /** How many offices to give {@code target} at most. */
    int count(String target) {
      int at = targets.indexOf(target);
      return at < 0 ? 0 : counts.get(at);
    }
  }

  /**
   * The next move of {@code self}, or empty when nothing should move now.
   *
   * @param members the live members as published (leads as each last wrote it)
   * @param self this member's id
   * @param led the offices this member leads now (its own count is {@code led.size()}, fresher than
   *     what it published)
   * @param minTenureNanos how long a term lasts before it is given to a member of higher priority
   * @param offices how many offices this member campaigns for in the group: with the published
   *     counts, which lag the hand-overs, the group's size as the fair floor counts it
   * @param quiet whether the counts are quiet: none changed lately and no hand-over is under way,
   *     so that they show every hand-over made (then no floor holds a giver back)
   * @param moving the members that others are handing an office to now, and those handing it: their
   *     counts are about to change, so they are not given a share until those hand-overs show
   */
  static Optional<Plan> decide(
      List<Member> members,
      String self,
      List<Office> led,
      long minTenureNanos,
      int offices,
      boolean quiet,
      Set<String> moving) {
    Member me = null;
    int top = Integer.MIN_VALUE;
    for (Member member : members) {
      if (member.id().equals(self)) {
        me = member;
        // This member leads, so it stands in a line, whatever it published last.
        top = Math.max(top, member.priority());
      } else if (member.receiving()) {
        top = Math.max(top, member.priority());
      }
    }
    if (me == null || led.isEmpty()) {
      // Not seen in the group yet (or gone from it): others cannot see it either; wait.
      return Optional.empty();
    }
    int mine = led.size();
    List<Member> eligible = new ArrayList<>();
    for (Member member : members) {
      if (member.receiving() && member.priority() == top && !member.id().equals(self)) {
        eligible.add(member);
      }
    }
    eligible.sort(FEWEST_FIRST);
    if (me.priority() < top) {
      List<String> due =
          led.stream()
              .filter(o -> o.canMove() && o.heldNanos() >= minTenureNanos)
              .map(Office::name)
              .sorted()
              .toList();
      // Spread over the eligible: each move gives the one leading fewest its part.
      int part =
          eligible.isEmpty()
              ? 1
              : Math.max(1, (due.size() + eligible.size() - 1) / eligible.size());
      return plan(due, eligible, Reason.PRIORITY, Collections.nCopies(eligible.size(), part));
    }
    List<Slot> slots = slots(eligible, new Member(self, top, mine, true), offices, quiet, moving);
    if (slots.isEmpty()) {
      return Optional.empty();
    }
    List<String> movable =
        led.stream()
            .filter(Office::canMove)
            // The longest held first: its work has had the most time, and it spreads tenure.
            .sorted(Comparator.comparingLong(Office::heldNanos).reversed())
            .map(Office::name)
            .toList();
    return plan(
        movable,
        slots.stream().map(Slot::target).toList(),
        Reason.SHARE,
        slots.stream().map(Slot::count).toList());
  }

  /** A receiver matched by {@link #slots}, and how many offices this member gives it now. */
  private record Slot(Member target, int count) {}

  /**
   * Whom this member gives to now, and how many, so that members giving at the same time do not all
   * give to the same one and overshoot (which costs moves back). Every member computes the same
   * from the same view: each member's end count is the fair floor, and the offices left over (the
   * total less the floor times the members) add one each to those that lead most (then by id), so
   * that the fewest offices move. The givers (two or more above the fewest, most first, then id)
   * offer what they lead above their end count; the receivers (two or more below the most, fewest
   * first) want what they lack of theirs; offers are matched to wants in those orders, the first
   * giver's to the first receivers. This member gives all its matches in one move (but none to a
   * receiver whose count is about to change), and two givers never fill the same want.
   *
   * <p>While counts are moving, nobody gives below the fair floor of the offices this member knows
   * (a count not yet updated understates the total, and a receiver whose count lags the hand-overs
   * made to it looks emptier than it is), so a move back is never needed to undo a move made on
   * stale counts. Once they are quiet, the floor is the eligible members' own total: offices led
   * outside the group (or vacant) must not stop the share.
   */
  private static List<Slot> slots(
      List<Member> others, Member me, int offices, boolean quiet, Set<String> moving) {
    List<Member> all = new ArrayList<>(others);
    all.add(me);
    int min = Integer.MAX_VALUE;
    int max = Integer.MIN_VALUE;
    int total = 0;
    for (Member member : all) {
      min = Math.min(min, member.leads());
      max = Math.max(max, member.leads());
      total += member.leads();
    }
    int floor = (quiet ? total : Math.max(offices, total)) / all.size();
    if (me.leads() - 1 < floor) {
      return List.of(); // giving would take this member below the fair floor
    }
    all.sort(MOST_FIRST);
    Map<String, Integer> end = new HashMap<>();
    int left = Math.max(0, total - floor * all.size());
    for (Member member : all) {
      end.put(member.id(), floor + (left-- > 0 ? 1 : 0));
    }
    List<Member> givers = new ArrayList<>();
    List<Member> receivers = new ArrayList<>();
    for (Member member : all) {
      if (member.leads() >= min + 2 && member.leads() > end.getOrDefault(member.id(), floor)) {
        givers.add(member);
      }
      if (member.leads() <= max - 2 && member.leads() < end.getOrDefault(member.id(), floor)) {
        receivers.add(member);
      }
    }
    receivers.sort(FEWEST_FIRST);
    List<Slot> mine = new ArrayList<>();
    int r = 0;
    int wanted = receivers.isEmpty() ? 0 : want(receivers.get(0), end, floor);
    for (Member giver : givers) {
      int offer = giver.leads() - end.getOrDefault(giver.id(), floor);
      while (offer > 0 && r < receivers.size()) {
        int matched = Math.min(offer, wanted);
        Member target = receivers.get(r);
        if (giver.id().equals(me.id()) && !moving.contains(target.id())) {
          // A receiver whose count is about to change is matched again once it shows (the others
          // see whom this member hands to differently, so the matching leaves nobody out for it).
          // Never so many that this member ends below the target: that would only swap them.
          int count = Math.min(matched, (me.leads() - target.leads()) / 2);
          if (count > 0) {
            mine.add(new Slot(target, count));
          }
        }
        offer -= matched;
        wanted -= matched;
        if (wanted == 0 && ++r < receivers.size()) {
          wanted = want(receivers.get(r), end, floor);
        }
      }
      if (giver.id().equals(me.id())) {
        break;
      }
    }
    return mine; // empty: the others fill every want first
  }

  /** What a receiver lacks of its end count. */
  private static int want(Member receiver, Map<String, Integer> end, int floor) {
    return end.getOrDefault(receiver.id(), floor) - receiver.leads();
  }

  /** The plan, or empty when there is nothing to give or nobody to give to. */
  private static Optional<Plan> plan(
      List<String> offices, List<Member> targets, Reason reason, List<Integer> counts) {
    if (offices.isEmpty() || targets.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        new Plan(offices, targets.stream().map(Member::id).toList(), reason, counts));
  }
}
