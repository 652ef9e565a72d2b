package dev.conch.etcd;

import dev.conch.OfficeGroup.Member;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The members of a group as {@link EtcdOfficeGroup} runs them, in rounds: in each, every member
 * decides on the same published view ({@link ShareRule#decide}), the moves are made (a target that
 * refuses is passed over; a giver whose targets all refused waits {@link #EXCLUDED} rounds, and
 * from a target's second refusal in a row on leaves it out of the share for as long), then the
 * counts are published. What etcd and time do is modelled as:
 *
 * <ul>
 *   <li>offices led outside the group (their count never changes);
 *   <li>stale counts: a lagging member publishes its count one round late;
 *   <li>a non-receiver: it publishes {@code receiving=false} (and refuses) until a given round;
 *   <li>a refuser: it publishes {@code receiving=true} but refuses every office until a given round
 *       (its flag is stale);
 *   <li>a giver publishes whom it hands to before the hand-over (seen in the next round, whatever
 *       the lag: etcd's watch delivers in revision order), and clears it once the target's count
 *       shows the hand-over (at most {@link #SETTLE} rounds); the others do not give to that giver
 *       or those targets meanwhile;
 *   <li>counts are quiet once nobody hands over and the view was the same for three rounds in a row
 *       (longer than the lag), as the group's {@code COUNTS_QUIET} is longer than a count takes to
 *       be published.
 * </ul>
 */
final class ShareSimulation {

  /** For how many rounds a member that refused every office offered is not offered any. */
  static final int EXCLUDED = 2;

  private static final String[] OFFICES = new String[100];
  private static final String[] IDS = new String[10];

  static {
    for (int i = 0; i < OFFICES.length; i++) {
      OFFICES[i] = String.format("o%02d", i);
    }
    for (int i = 0; i < IDS.length; i++) {
      IDS[i] = "m" + i;
    }
  }

  /** For how many rounds at most a giver waits for the target's count to show its hand-over. */
  static final int SETTLE = 6;

  private final int n;
  private final int[] priority;
  private final boolean[] lagging;
  private final int[] outUntil; // publishes receiving=false and refuses before this round
  private final int[] refusesUntil; // publishes receiving=true but refuses before this round
  private final int offices;
  private final List<List<String>> led = new ArrayList<>();
  private final int[] published;
  private final int[] lastRound;
  private final List<int[]> views = new ArrayList<>();
  private final List<List<String>> to = new ArrayList<>();
  private final long[] idle; // per member: the inputs on which it last decided nothing
  private final int[] pausedUntil; // per member: it gives again from this round on
  private final List<Set<String>> refusedOnce = new ArrayList<>();
  boolean trace;
  private int moves;

  /**
   * A group of {@code leads.length} members {@code m0…}, leading {@code leads}, with {@code
   * outside} offices led by others.
   */
  ShareSimulation(
      int[] leads,
      int outside,
      int[] priority,
      boolean[] lagging,
      int[] outUntil,
      int[] refusesUntil) {
    this.n = leads.length;
    this.priority = priority;
    this.lagging = lagging;
    this.outUntil = outUntil;
    this.refusesUntil = refusesUntil;
    int next = 0;
    for (int i = 0; i < n; i++) {
      List<String> mine = new ArrayList<>();
      for (int j = 0; j < leads[i]; j++) {
        mine.add(OFFICES[next++]);
      }
      led.add(mine);
    }
    this.offices = next + outside;
    for (int i = 0; i < n; i++) {
      to.add(List.of());
    }
    this.pausedUntil = new int[n];
    for (int i = 0; i < n; i++) {
      refusedOnce.add(new HashSet<>());
    }
    this.idle = new long[n];
    Arrays.fill(idle, -1);
    this.published = leads.clone();
    this.lastRound = leads.clone();
  }

  /** The rounds it took until the last move, once nothing moved for long; -1 if it never stops. */
  int run(int maxRounds) {
    Map<Integer, Map<String, Integer>> excluded = new HashMap<>();
    Map<Integer, Map<String, Integer>> pendingTarget = new HashMap<>();
    Map<Integer, Integer> pendingUntil = new HashMap<>();
    Set<String> states = new HashSet<>();
    states.add(Arrays.toString(counts()));
    int lastMove = 0;
    int disturbed = 0;
    for (int i = 0; i < n; i++) {
      disturbed = Math.max(disturbed, refusesUntil[i]);
      disturbed = outUntil[i] == Integer.MAX_VALUE ? disturbed : Math.max(disturbed, outUntil[i]);
    }
    for (int round = 0; round < maxRounds; round++) {
      int[] view = published.clone();
      views.add(view);
      List<List<String>> toSeen = new ArrayList<>(to);
      boolean still =
          views.size() >= 3
              && Arrays.equals(view, views.get(views.size() - 2))
              && Arrays.equals(view, views.get(views.size() - 3));
      int[] before = counts();
      for (int i = 0; i < n; i++) {
        Map<String, Integer> pending = pendingTarget.get(i);
        if (pending != null) {
          boolean shown = true;
          for (Map.Entry<String, Integer> target : pending.entrySet()) {
            shown &= view[index(target.getKey())] >= target.getValue();
          }
          if (!shown && round < pendingUntil.get(i)) {
            continue;
          }
          pendingTarget.remove(i);
          to.set(i, List.of());
        }
        if (led.get(i).isEmpty() || round < pausedUntil[i]) {
          continue; // it has nothing to give, or waits after a refusal
        }
        Set<String> moving = new HashSet<>();
        for (int j = 0; j < n; j++) {
          if (j != i && !toSeen.get(j).isEmpty()) {
            moving.add(IDS[j]);
            moving.addAll(toSeen.get(j));
          }
        }
        boolean quiet = still && moving.isEmpty();
        List<Member> members = new ArrayList<>();
        Map<String, Integer> mine = excluded.computeIfAbsent(i, k -> new HashMap<>());
        // What decide() is given, in one number: the same as last time, when it said nothing,
        // says nothing again (it is a pure function, and all offices are alike here).
        long inputs = quiet ? 1 : 0;
        for (int j = 0; j < n; j++) {
          boolean receiving = round >= outUntil[j];
          Integer until = mine.get(IDS[j]);
          if (until != null && round < until) {
            receiving = false;
          }
          int leads = j == i ? led.get(i).size() : view[j];
          members.add(new Member(IDS[j], priority[j], leads, j == i, receiving));
          inputs =
              inputs << 6 | leads << 2 | (receiving ? 2 : 0) | (moving.contains(IDS[j]) ? 1 : 0);
        }
        if (inputs == idle[i]) {
          continue;
        }
        List<ShareRule.Office> offices = new ArrayList<>();
        for (String office : led.get(i)) {
          offices.add(new ShareRule.Office(office, Long.MAX_VALUE / 2, true));
        }
        Optional<ShareRule.Plan> plan =
            ShareRule.decide(members, IDS[i], offices, 0, this.offices, quiet, moving);
        if (plan.isEmpty()) {
          idle[i] = inputs;
          continue;
        }
        idle[i] = -1;
        // Each office to the first target still owed one that takes it (the simulation has no
        // lines: the plan's order stands for them).
        Map<String, Integer> owed = new HashMap<>();
        plan.get().targets().forEach(t -> owed.put(t, plan.get().count(t)));
        Map<String, Integer> given = new LinkedHashMap<>();
        Set<String> refused = new HashSet<>();
        for (String office : plan.get().offices()) {
          boolean any = false;
          for (String target : plan.get().targets()) {
            if (owed.get(target) == 0) {
              continue;
            }
            any = true;
            int t = index(target);
            if (round < outUntil[t] || round < refusesUntil[t]) {
              refused.add(target);
              continue;
            }
            led.get(i).remove(office);
            led.get(t).add(office);
            moves++;
            owed.merge(target, -1, Integer::sum);
            given.merge(target, 1, Integer::sum);
            break;
          }
          if (!any) {
            break;
          }
        }
        if (trace) {
          System.out.printf(
              "round %d view %s quiet %s: m%d %s%n",
              round,
              Arrays.toString(view),
              quiet,
              i,
              given.isEmpty()
                  ? "refused by " + refused
                  : "-> " + given + " (" + plan.get().reason() + ")");
        }
        if (given.isEmpty()) {
          pausedUntil[i] = round + 1 + EXCLUDED;
          for (String target : refused) {
            // Left out of the share from its second refusal in a row on.
            if (mine.containsKey(target) || !refusedOnce.get(i).add(target)) {
              mine.put(target, round + 1 + EXCLUDED);
            }
          }
        } else {
          Map<String, Integer> after = new HashMap<>();
          given.forEach((target, count) -> after.put(target, view[index(target)] + count));
          pendingTarget.put(i, after);
          pendingUntil.put(i, round + SETTLE);
          to.set(i, List.copyOf(given.keySet()));
        }
      }
      int[] after = counts();
      if (!Arrays.equals(before, after)) {
        lastMove = round + 1;
        if (!states.add(Arrays.toString(after))) {
          throw new AssertionError(
              "a cycle: " + Arrays.toString(after) + " again in round " + round);
        }
      }
      for (int j = 0; j < n; j++) {
        published[j] = lagging[j] ? lastRound[j] : after[j];
        lastRound[j] = after[j];
      }
      boolean seenHanding = toSeen.stream().anyMatch(targets -> !targets.isEmpty());
      if (!seenHanding && settled(round, disturbed, before, after, excluded, pendingTarget)) {
        return lastMove;
      }
    }
    return -1;
  }

  /**
   * Whether every later round is this one again: nothing moved, every count is published, nobody is
   * handing over, settling or kept out (nor was seen handing over when this round's members
   * decided), the disturbances are over and the counts are quiet. Every member then decides on the
   * same inputs as in this round, and so again makes no move.
   */
  private boolean settled(
      int round,
      int disturbed,
      int[] before,
      int[] after,
      Map<Integer, Map<String, Integer>> excluded,
      Map<Integer, Map<String, Integer>> pendingTarget) {
    if (!Arrays.equals(before, after)
        || !Arrays.equals(published, after)
        || round < disturbed
        || !pendingTarget.isEmpty()
        || handing()
        || views.size() < 3
        || !Arrays.equals(published, views.get(views.size() - 1))
        || !Arrays.equals(published, views.get(views.size() - 2))
        || !Arrays.equals(published, views.get(views.size() - 3))) {
      return false;
    }
    for (int until : pausedUntil) {
      if (until > round) {
        return false;
      }
    }
    for (Map<String, Integer> kept : excluded.values()) {
      for (int until : kept.values()) {
        if (until > round) {
          return false;
        }
      }
    }
    return true;
  }

  private boolean handing() {
    for (List<String> targets : to) {
      if (!targets.isEmpty()) {
        return true;
      }
    }
    return false;
  }

  private static int index(String id) {
    return id.charAt(1) - '0';
  }

  /** How many offices were handed over. */
  int moves() {
    return moves;
  }

  /**
   * The fewest hand-overs that make {@code leads} fair when all are alike (one priority, all
   * receiving): the offices above the floor stay with those that lead most.
   */
  static int fewestMoves(int[] leads) {
    int total = Arrays.stream(leads).sum();
    int floor = total / leads.length;
    int[] sorted = leads.clone();
    Arrays.sort(sorted);
    int extra = total - floor * leads.length;
    int moves = 0;
    for (int i = sorted.length - 1; i >= 0; i--) {
      int end = floor + (extra-- > 0 ? 1 : 0);
      moves += Math.max(0, sorted[i] - end);
    }
    return moves;
  }

  /** How many offices each member leads now. */
  int[] counts() {
    int[] counts = new int[n];
    for (int i = 0; i < n; i++) {
      counts[i] = led.get(i).size();
    }
    return counts;
  }

  /**
   * Whether the share is fair: the receivers of the highest priority among them lead within one of
   * each other, and the other receivers lead nothing (a member out for good is no receiver).
   */
  boolean fair() {
    int top = Integer.MIN_VALUE;
    for (int i = 0; i < n; i++) {
      if (outUntil[i] != Integer.MAX_VALUE) {
        top = Math.max(top, priority[i]);
      }
    }
    int max = Integer.MIN_VALUE;
    int min = Integer.MAX_VALUE;
    int[] counts = counts();
    for (int i = 0; i < n; i++) {
      if (outUntil[i] == Integer.MAX_VALUE) {
        continue;
      }
      if (priority[i] == top) {
        max = Math.max(max, counts[i]);
        min = Math.min(min, counts[i]);
      } else if (counts[i] != 0) {
        return false;
      }
    }
    return max - min <= 1;
  }
}
