package dev.conch.etcd;

import dev.conch.OfficeGroup.Member;
import dev.conch.OfficeGroup.Reason;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * What one member of a group gives away next, from what it sees: a pure function, so that the
 * group's thread only gathers facts and carries the move out. Each member decides only about the
 * offices it leads, so two members' decisions never conflict.
 *
 * <ul>
 *   <li>Eligible are the live members of the highest priority present. A member that is not gives
 *       away each office it leads once the term lasted the minimum tenure ({@link
 *       Reason#PRIORITY}): priority first.
 *   <li>An eligible member gives one office away when it leads at least two more than the eligible
 *       member that leads fewest ({@link Reason#SHARE}): then the share. Within one of each other,
 *       nothing moves (sticky), and the end state has nobody above ⌈offices / eligible members⌉.
 * </ul>
 *
 * Targets are the eligible members in order of how few they lead (then id), so that a refused
 * hand-over (the target is not a candidate of that office) tries the next one.
 */
final class ShareRule {

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
   * What to try: the first office of {@code offices} that some target of {@code targets} takes.
   *
   * @param offices the offices to give away, in the order to try them
   * @param targets the members to give them to, in the order to try them
   * @param reason why
   */
  record Plan(List<String> offices, List<String> targets, Reason reason) {}

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
   */
  static Optional<Plan> decide(
      List<Member> members, String self, List<Office> led, long minTenureNanos, int offices) {
    Optional<Member> me = members.stream().filter(m -> m.id().equals(self)).findFirst();
    if (me.isEmpty() || led.isEmpty()) {
      // Not seen in the group yet (or gone from it): others cannot see it either; wait.
      return Optional.empty();
    }
    int mine = led.size();
    int top = members.stream().mapToInt(Member::priority).max().orElseThrow();
    List<Member> eligible =
        members.stream()
            .filter(m -> m.priority() == top && !m.id().equals(self))
            .sorted(Comparator.comparingInt(Member::leads).thenComparing(Member::id))
            .toList();
    if (me.get().priority() < top) {
      List<String> due =
          led.stream()
              .filter(o -> o.canMove() && o.heldNanos() >= minTenureNanos)
              .map(Office::name)
              .sorted()
              .toList();
      return plan(due, eligible, Reason.PRIORITY);
    }
    List<Member> fewer = eligible.stream().filter(m -> m.leads() <= mine - 2).toList();
    if (fewer.isEmpty()) {
      return Optional.empty();
    }
    Optional<Member> target = slot(eligible, new Member(self, top, mine, true), offices);
    if (target.isEmpty()) {
      return Optional.empty();
    }
    List<Member> targets = new ArrayList<>();
    targets.add(target.get());
    fewer.stream().filter(m -> !m.equals(target.get())).forEach(targets::add);
    List<String> movable =
        led.stream()
            .filter(Office::canMove)
            // The longest held first: its work has had the most time, and it spreads tenure.
            .sorted(Comparator.comparingLong(Office::heldNanos).reversed())
            .map(Office::name)
            .toList();
    return plan(movable, targets, Reason.SHARE);
  }

  /**
   * Whom this member gives to now, so that members giving at the same time do not all give to the
   * same one and overshoot (which costs moves back): the receivers (eligible members two or more
   * below the most) get as many slots as they lack of the fair floor, at least one, dealt out one
   * per receiver per round, fewest first; the givers (two or more above the fewest) take the slots
   * in order of how many they lead (most first, then id). A giver past the last slot waits: the
   * others fill them. Every member computes the same from the same view. Nobody gives below the
   * fair floor, so a move back is never needed to undo a move made on stale counts.
   */
  private static Optional<Member> slot(List<Member> others, Member me, int offices) {
    List<Member> all = new ArrayList<>(others);
    all.add(me);
    int min = all.stream().mapToInt(Member::leads).min().orElseThrow();
    int max = all.stream().mapToInt(Member::leads).max().orElseThrow();
    // A count not yet updated understates the total; the offices this member knows do not.
    int floor = Math.max(offices, all.stream().mapToInt(Member::leads).sum()) / all.size();
    if (me.leads() - 1 < floor) {
      // Giving would take this member below the fair floor: a receiver whose count lags the
      // hand-overs already made to it looks emptier than it is, and would be given too much.
      return Optional.empty();
    }
    List<Member> givers =
        all.stream()
            .filter(m -> m.leads() >= min + 2)
            .sorted(Comparator.comparingInt(Member::leads).reversed().thenComparing(Member::id))
            .toList();
    List<Member> receivers =
        all.stream()
            .filter(m -> m.leads() <= max - 2)
            .sorted(Comparator.comparingInt(Member::leads).thenComparing(Member::id))
            .toList();
    int rank = givers.indexOf(me);
    List<Member> slots = new ArrayList<>();
    for (int round = 0; slots.size() <= rank; round++) {
      int dealt = slots.size();
      for (Member receiver : receivers) {
        if (round < Math.max(1, floor - receiver.leads())) {
          slots.add(receiver);
        }
      }
      if (slots.size() == dealt) {
        break;
      }
    }
    if (rank < 0 || rank >= slots.size() || slots.get(rank).leads() > me.leads() - 2) {
      return Optional.empty();
    }
    return Optional.of(slots.get(rank));
  }

  private static Optional<Plan> plan(List<String> offices, List<Member> targets, Reason reason) {
    if (offices.isEmpty() || targets.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new Plan(offices, targets.stream().map(Member::id).toList(), reason));
  }
}
