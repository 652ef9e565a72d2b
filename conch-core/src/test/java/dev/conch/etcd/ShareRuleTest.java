package dev.conch.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.OfficeGroup.Member;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The share rule as a table: members as {@code id:priority:leads} ({@code :out}: not a receiver),
 * the offices {@code self} leads as a count (held long, movable) or as {@code
 * office:heldSeconds:movable} ({@code self@N}: it campaigns for N offices; {@code quiet}: the
 * counts are quiet, else moving), a minimum tenure of 15 s, and what it gives away: {@code REASON
 * first-office>target:count,...} (each target at most count offices, whichever stands first in an
 * office's line), or {@code -} for nothing. Then every start state of up to five members and
 * thirteen offices, run in rounds ({@link ShareSimulation}): each converges, without a cycle.
 */
class ShareRuleTest {

  private static final long MIN_TENURE = TimeUnit.SECONDS.toNanos(15);

  @ParameterizedTest(name = "{0}; {1} leads {2} => {3}")
  @CsvSource(
      delimiter = ';',
      value = {
        // the first of three leads all: it gives each the share it lacks, in one move
        "a:0:12 b:0:0 c:0:0; a; 12; SHARE o01>b:4,c:4",
        "a:0:11 b:0:1 c:0:0; a; 11; SHARE o01>c:4,b:3",
        // sticky: within one of each other, nothing moves
        "a:0:5 b:0:4 c:0:4;  a; 5;  -",
        "a:0:4 b:0:4 c:0:4;  a; 4;  -",
        "a:0:1 b:0:0;        a; 1;  -",
        // two more than the fewest: one moves, only to those it is two above
        "a:0:6 b:0:4 c:0:5;  a; 6;  SHARE o01>b:1",
        // givers at the same time match the receivers' wants among them: no overshoot
        "a:0:6 b:0:6 c:0:0;        b; 6;  SHARE o01>c:2",
        "a:0:10 b:0:10 c:0:0 d:0:0; a; 10; SHARE o01>c:5",
        "a:0:10 b:0:10 c:0:0 d:0:0; b; 10; SHARE o01>d:5",
        // ... and the offices above the floor stay with those that lead most (then by id)
        "a:0:4 b:0:4 c:0:4 d:0:2;  a; 4;  -",
        "a:0:4 b:0:4 c:0:4 d:0:2;  b; 4;  -",
        "a:0:4 b:0:4 c:0:4 d:0:2;  c; 4;  SHARE o01>d:1",
        // counts lag the hand-overs: nobody gives below the fair floor of the offices it knows
        "a:0:4 b:0:4 c:0:2;        a@12; 4; -",
        "a:0:5 b:0:4 c:0:1;        a@12; 5; SHARE o01>c:1",
        "a:0:5 b:0:5 c:0:1;        b@12; 5; SHARE o01>c:1",
        // the one leading fewest never gives
        "a:0:0 b:0:12;       a; 0;  -",
        "a:0:4 b:0:8;        a; 4;  -",
        // its own count is what it leads now, not what it published last
        "a:0:9 b:0:4;        a; 5;  -",
        // a lone member keeps everything
        "a:0:12;             a; 12; -",
        // not in the view yet (or gone from it): others cannot see it, nothing moves
        "b:0:0;              a; 12; -",
        // priority first: a lower member gives every office held past the tenure to the eligible
        "a:0:3 b:1:0 c:1:2;  a; x:20:y w:20:y v:20:y; PRIORITY v>b:2,c:2",
        "a:0:3 b:1:0;        a; x:10:y w:20:y;        PRIORITY w>b:1",
        "a:0:2 b:1:0;        a; x:10:y w:14:y;        -",
        "a:0:2 b:1:0;        a; x:30:n w:30:y;        PRIORITY w>b:1",
        // ... even when it leads fewest, and whatever the shares among the eligible
        "a:0:1 b:1:9;        a; x:30:y;               PRIORITY x>b:1",
        // equal priorities never move for priority, only for the share
        "a:2:2 b:2:1;        a; x:30:y y:30:y;        -",
        // a higher member leads: shares among the eligible ignore the lower members' counts
        "a:1:6 b:1:4 c:0:0;  a; 6;  SHARE o01>b:1",
        // an office whose work cannot stop stays; the next movable one goes
        "a:0:3 b:0:0;        a; x:30:n y:20:y z:10:y; SHARE y>b:1",
        "a:0:2 b:0:0;        a; x:30:n y:20:n;        -",
        // a negative priority is lower than the default
        "a:-1:1 b:0:0;       a; x:30:y;               PRIORITY x>b:1",
        // 3 of 12 led outside the group: while counts move, the floor of 12 / 3 holds them...
        "a:0:1 b:0:4 c:0:4;  b@12; 4; -",
        "a:0:1 b:0:4 c:0:4;  c@12; 4; -",
        // ... once they are quiet, the members' own 9 are shared: 1/4/4 is not the end
        "a:0:1 b:0:4 c:0:4;  b@12 quiet; 4; SHARE o01>a:1",
        "a:0:1 b:0:4 c:0:4;  c@12 quiet; 4; SHARE o01>a:1",
        "a:0:2 b:0:3 c:0:4;  c@12 quiet; 4; SHARE o01>a:1",
        // 4 led outside: 0/4/4, both give to the empty one
        "a:0:0 b:0:4 c:0:4;  b@12 quiet; 4; SHARE o01>a:1",
        "a:0:0 b:0:4 c:0:4;  c@12 quiet; 4; SHARE o01>a:1",
        // a member in no line is no target, and does not count in the floor
        "a:0:6 b:0:6 c:0:0:out; a quiet; 6; -",
        "a:0:6 b:0:6 c:0:0;     a quiet; 6; SHARE o01>c:2",
        "a:0:8 b:0:4 c:0:0:out; a@12;    8; SHARE o01>b:2",
        "a:0:7 b:0:5 c:0:0:out; a@12;    7; SHARE o01>b:1",
        // the top priority cannot receive: the share falls back to the highest that can
        "a:0:12 b:0:0 c:5:0;     a; 12; PRIORITY o01>c:12",
        "a:0:12 b:0:0 c:5:0:out; a; 12; SHARE o01>b:6",
        "a:0:12 b:0:0 c:5:0:out; b; 0;  -",
        "a:0:6 b:0:6 c:5:0:out;  a quiet; 6; -",
        "a:0:12 b:1:0:out c:5:0:out; a; 12; -",
        // this member leads, so it receives whatever it published last
        "a:0:5:out b:0:1;   a quiet; 5; SHARE o01>b:2",
      })
  void decides(String members, String self, String led, String expected) {
    // "a@12": member a, campaigning for 12 offices (else: as many as the counts add up to).
    String[] words = self.trim().split("\\s+");
    String[] who = words[0].split("@");
    int total = who.length > 1 ? Integer.parseInt(who[1]) : 0;
    boolean quiet = words.length > 1 && words[1].equals("quiet");
    var plan =
        ShareRule.decide(
            members(members), who[0], offices(led), MIN_TENURE, total, quiet, Set.of());
    String got =
        plan.map(
                p ->
                    p.reason()
                        + " "
                        + p.offices().get(0)
                        + ">"
                        + String.join(
                            ",", p.targets().stream().map(t -> t + ":" + p.count(t)).toList()))
            .orElse("-");
    assertThat(got).isEqualTo(expected);
  }

  /** The most rounds any start state may take to its last move. */
  private static final int ROUNDS = 60;

  @Test
  @Timeout(60)
  void everyStartStateOfUpToFiveMembersAndThirteenOfficesConvergesWithoutACycle() {
    long started = System.nanoTime();
    long cpu = cpuNanos();
    List<int[]> starts = new ArrayList<>();
    for (int n = 1; n <= 5; n++) {
      starts.addAll(states(n + 1, 13));
    }
    // One result per start state and variant: the rounds to the last move, and which run it was.
    List<Run> runs =
        starts.parallelStream()
            .flatMap(state -> Arrays.stream(Variant.values()).map(variant -> run(variant, state)))
            .filter(Objects::nonNull)
            .toList();
    Run worst = runs.stream().max(Comparator.comparingInt(Run::rounds)).orElseThrow();
    System.out.printf(
        "ShareRule: %d runs converged in %.1f s (%.1f s of CPU); mean %.2f rounds to the last"
            + " move, worst %d (%s)%n",
        runs.size(),
        (System.nanoTime() - started) / 1e9,
        (cpuNanos() - cpu) / 1e9,
        runs.stream().mapToInt(Run::rounds).average().orElseThrow(),
        worst.rounds(),
        worst.what());
    assertThat(worst.rounds()).as(worst.what()).isLessThanOrEqualTo(ROUNDS);
  }

  private record Run(int rounds, String what) {}

  private static long cpuNanos() {
    return ManagementFactory.getOperatingSystemMXBean()
            instanceof com.sun.management.OperatingSystemMXBean os
        ? os.getProcessCpuTime()
        : 0;
  }

  /** One run: how many rounds it took, or null where the variant does not apply. */
  private static Run run(Variant variant, int[] state) {
    int n = state.length - 1;
    int[] leads = Arrays.copyOf(state, n);
    int outside = state[n];
    ShareSimulation simulation = variant.simulation(leads, outside);
    if (simulation == null) {
      return null;
    }
    String what = variant + " " + Arrays.toString(leads) + " +" + outside + " outside";
    int rounds;
    try {
      rounds = simulation.run(400);
    } catch (AssertionError e) {
      throw new AssertionError(what + ": " + e.getMessage(), e);
    }
    assertThat(rounds).as(what + " never stopped moving").isNotNegative();
    assertThat(simulation.fair())
        .as(what + " ended at " + Arrays.toString(simulation.counts()))
        .isTrue();
    if (variant == Variant.FRESH && outside == 0) {
      // Counts that show every hand-over, and nothing led outside: no move is wasted.
      assertThat(simulation.moves())
          .as(what + ": hand-overs")
          .isEqualTo(ShareSimulation.fewestMoves(leads));
    }
    return new Run(rounds, what + " -> " + Arrays.toString(simulation.counts()));
  }

  /** What else is going on in a run besides the start state. */
  private enum Variant {
    FRESH,
    STALE,
    OUT_AND_BACK,
    STALE_OUT_AND_BACK,
    REFUSES,
    STALE_REFUSES,
    TOP_PRIORITY_OUT,
    TOP_PRIORITY;

    /** The run, or null where it does not apply to that start. */
    ShareSimulation simulation(int[] leads, int outside) {
      int n = leads.length;
      int[] priority = new int[n];
      boolean[] lagging = new boolean[n];
      int[] outUntil = new int[n];
      int[] refusesUntil = new int[n];
      int last = n - 1;
      if (name().startsWith("STALE")) {
        for (int i = 1; i < n; i += 2) {
          lagging[i] = true;
        }
      }
      // A member out of every line, or refusing everything, leads nothing.
      boolean lastEmpty = n > 1 && leads[last] == 0;
      switch (this) {
        case OUT_AND_BACK, STALE_OUT_AND_BACK -> {
          if (!lastEmpty) {
            return null;
          }
          outUntil[last] = 3;
        }
        case REFUSES, STALE_REFUSES -> {
          if (!lastEmpty) {
            return null;
          }
          refusesUntil[last] = 5;
        }
        case TOP_PRIORITY_OUT -> {
          if (!lastEmpty) {
            return null;
          }
          priority[last] = 1;
          outUntil[last] = Integer.MAX_VALUE;
        }
        case TOP_PRIORITY -> {
          if (n < 2) {
            return null;
          }
          priority[0] = 1;
        }
        default -> {}
      }
      return new ShareSimulation(leads, outside, priority, lagging, outUntil, refusesUntil);
    }
  }

  /** Every way of putting at most {@code total} offices in {@code buckets} buckets. */
  private static List<int[]> states(int buckets, int total) {
    List<int[]> states = new ArrayList<>();
    fill(new int[buckets], 0, total, states);
    return states;
  }

  private static void fill(int[] state, int at, int left, List<int[]> states) {
    if (at == state.length) {
      states.add(state.clone());
      return;
    }
    for (int k = 0; k <= left; k++) {
      state[at] = k;
      fill(state, at + 1, left - k, states);
    }
  }

  private static List<Member> members(String spec) {
    List<Member> members = new ArrayList<>();
    for (String one : spec.trim().split("\\s+")) {
      String[] f = one.split(":");
      boolean receiving = f.length < 4 || !f[3].equals("out");
      members.add(
          new Member(f[0], Integer.parseInt(f[1]), Integer.parseInt(f[2]), false, receiving));
    }
    return members;
  }

  private static List<ShareRule.Office> offices(String spec) {
    String trimmed = spec.trim();
    List<ShareRule.Office> offices = new ArrayList<>();
    if (trimmed.matches("\\d+")) {
      int n = Integer.parseInt(trimmed);
      for (int i = 1; i <= n; i++) {
        // The first is held longest, so it is the one a share gives away first.
        offices.add(
            new ShareRule.Office(
                String.format("o%02d", i), TimeUnit.SECONDS.toNanos(1000 - i), true));
      }
      return offices;
    }
    Arrays.stream(trimmed.split("\\s+"))
        .map(one -> one.split(":"))
        .forEach(
            f ->
                offices.add(
                    new ShareRule.Office(
                        f[0], TimeUnit.SECONDS.toNanos(Long.parseLong(f[1])), f[2].equals("y"))));
    return offices;
  }
}
