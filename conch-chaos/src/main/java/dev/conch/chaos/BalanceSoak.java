package dev.conch.chaos;

import dev.conch.ElectionOptions;
import dev.conch.GroupOptions;
import dev.conch.LossReason;
import dev.conch.etcd.SessionOptions;
import dev.conch.etcd.TimingBudget;
import dev.conch.test.EtcdCluster;
import dev.conch.test.EtcdMember;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The fair share under faults: a 3-member etcd, 3 members in this JVM (each with its own client,
 * session and proxies) sharing 12 offices (or {@code --offices N}) in one group with balancing on,
 * joined 3 s apart; then faults from a seed, in rounds of every kind, each followed by a wait for
 * the fair share again (4 / 4 / 4; with N offices, shares that differ by at most one). Every term's
 * [acquire-start, lose-end] goes to one {@link TermLog} on one clock; the checks: no two members'
 * terms of an office overlap, tokens strictly increase per office, shares back to fair within the
 * delay + TTL + 10 s of each fault's end (or {@code --fair-within-s S}), and losses that no fault
 * explains. With {@code --offices 10000} it is the scale soak of issue 32. Run from the repository
 * root:
 *
 * <pre>
 * mvn -B -ntp -q -pl conch-chaos -am package -DskipTests -Dsoak \
 *     -Dsoak.main=dev.conch.chaos.BalanceSoak -Dexec.args="--minutes 3 --seed 42"
 * </pre>
 *
 * Arguments: {@code --minutes M} or {@code --seconds S} (2 min), {@code --seed N}, {@code --ttl S}
 * (4), {@code --delay-ms N} (1000), {@code --min-tenure-ms N} (2000), {@code --offices N} (12),
 * {@code --fair-within-s S} (delay + TTL + 10 s), {@code --faults KIND,KIND} (every {@link Fault}).
 * Exits 0 when every check holds, 1 on an overlap or a token out of order, 2 when safe but the
 * shares did not come back in time or a loss was needless.
 *
 * <p>Longer than most files here, on purpose: a soak whose run, faults and verdict share one clock,
 * one {@link TermLog} and one list of faults and outcomes, and are used nowhere else.
 */
public final class BalanceSoak {

  static final int MEMBERS = 3;
  static final String GROUP = "soak";

  /** The ends of a term that someone chose: never a loss to explain. */
  private static final Set<LossReason> CHOSEN =
      EnumSet.of(LossReason.TRANSFERRED, LossReason.RESIGNED, LossReason.CLOSED);

  /** The faults, each healed before the next. */
  enum Fault {
    /** SIGSTOP an etcd member for 2–6 s. */
    PAUSE_MEMBER,
    /** SIGKILL an etcd member, start it again 2–6 s later. */
    KILL_MEMBER,
    /**
     * Black-hole one member's proxies for the etcd outage its offices' timing budget rides out
     * ({@link TimingBudget#outageRiddenOut()}, less 100 ms for the proxies' own switching): it must
     * keep its offices, and a term it loses counts as needless.
     */
    CUT_SHORT,
    /** Black-hole one member's proxies for TTL + 2 s: its offices go to the others and back. */
    CUT_LONG,
    /** Close one member (session, client), open it again. */
    RESTART,
    /**
     * One member's health goes DOWN for 2–6 s: it resigns its offices and stays out of every line
     * (its gate denies); the others share them, and give its share back once it is UP.
     */
    HEALTH_DOWN,
    /**
     * A member of higher priority flaps (joins and leaves twice within the hold-down), then joins
     * for good: every office goes to it once its key is older than the hold-down; then it leaves.
     */
    PRIORITY
  }

  /** A fault as injected: who it hit ({@code null}: every member, an etcd fault) and when. */
  record Injected(Fault kind, String target, @Nullable String member, long start, long heal) {}

  /** What one fault cost: the time back to 4 / 4 / 4 (-1: late), the terms lost, the moves. */
  record Outcome(Fault kind, long nanosToFair, long lost, int moved) {}

  private final Duration duration;
  private final Duration ttl;
  private final Duration delay;
  private final Duration minTenure;
  private final int offices;
  private final Duration fairWithin;
  private final Set<Fault> kinds;
  private final Random random;
  private final long origin = System.nanoTime();
  private final TermLog log = new TermLog();
  private final AtomicInteger moves = new AtomicInteger();
  private final List<Injected> faults = new ArrayList<>();
  private final List<Outcome> outcomes = new ArrayList<>();

  BalanceSoak(
      Duration duration,
      Duration ttl,
      Duration delay,
      Duration minTenure,
      int offices,
      @Nullable Duration fairWithin,
      Set<Fault> kinds,
      long seed) {
    this.duration = duration;
    this.ttl = ttl;
    this.delay = delay;
    this.minTenure = minTenure;
    this.offices = offices;
    this.fairWithin = fairWithin != null ? fairWithin : delay.plus(ttl).plusSeconds(10);
    this.kinds = kinds;
    this.random = new Random(seed);
  }

  public static void main(String[] args) throws Exception {
    Duration duration = Duration.ofMinutes(2);
    Duration ttl = Duration.ofSeconds(4);
    Duration delay = Duration.ofSeconds(1);
    Duration minTenure = Duration.ofSeconds(2);
    int offices = 12;
    @Nullable Duration fairWithin = null;
    Set<Fault> kinds = EnumSet.allOf(Fault.class);
    long seed = System.currentTimeMillis();
    for (int i = 0; i < args.length; i += 2) {
      String value = i + 1 < args.length ? args[i + 1] : "";
      switch (args[i]) {
        case "--minutes" -> duration = Duration.ofMinutes(Long.parseLong(value));
        case "--seconds" -> duration = Duration.ofSeconds(Long.parseLong(value));
        case "--ttl" -> ttl = Duration.ofSeconds(Long.parseLong(value));
        case "--delay-ms" -> delay = Duration.ofMillis(Long.parseLong(value));
        case "--min-tenure-ms" -> minTenure = Duration.ofMillis(Long.parseLong(value));
        case "--offices" -> offices = Integer.parseInt(value);
        case "--fair-within-s" -> fairWithin = Duration.ofSeconds(Long.parseLong(value));
        case "--faults" -> {
          kinds = EnumSet.noneOf(Fault.class);
          for (String kind : value.split(",")) {
            try {
              kinds.add(Fault.valueOf(kind.trim().toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException e) {
              throw new IllegalArgumentException(
                  "unknown fault '"
                      + kind
                      + "' in --faults; accepted: "
                      + EnumSet.allOf(Fault.class),
                  e);
            }
          }
        }
        case "--seed" -> seed = Long.parseLong(value);
        default ->
            throw new IllegalArgumentException(
                "unknown argument "
                    + args[i]
                    + "; accepted: --minutes M, --seconds S, --seed N, --ttl S, --delay-ms N,"
                    + " --min-tenure-ms N, --offices N, --fair-within-s S, --faults KIND,KIND");
      }
    }
    System.out.printf(
        "balance soak: %d members x %d offices, 3 etcd members, %d s, ttl %d s, delay %d ms,"
            + " min-tenure %d ms, seed %d%n",
        MEMBERS,
        offices,
        duration.toSeconds(),
        ttl.toSeconds(),
        delay.toMillis(),
        minTenure.toMillis(),
        seed);
    System.exit(
        new BalanceSoak(duration, ttl, delay, minTenure, offices, fairWithin, kinds, seed).run());
  }

  /** Runs the soak, prints the figures and returns the exit code. */
  int run() throws Exception {
    SessionOptions session = SessionOptions.defaults().withTtl(ttl);
    boolean late = false;
    try (EtcdCluster cluster = EtcdCluster.start(3)) {
      List<BalanceMember> members = new ArrayList<>();
      try {
        for (int i = 0; i < MEMBERS; i++) {
          if (i > 0) {
            pause(Duration.ofSeconds(3));
          }
          BalanceMember member =
              new BalanceMember(
                  "m" + i,
                  cluster,
                  log,
                  GroupOptions.builder(GROUP)
                      .candidateId("m" + i)
                      .delay(delay)
                      .minTenure(minTenure)
                      .build(),
                  session,
                  offices,
                  moves);
          members.add(member);
          member.open();
        }
        late |= awaitFair(members, "the last join") < 0;
        System.out.println();
        int movesAtStart = moves.get();
        System.out.printf("  moves while joining: %d%n", movesAtStart);
        long until = System.nanoTime() + duration.toNanos();
        List<Fault> round = new ArrayList<>();
        while (System.nanoTime() < until) {
          pause(Duration.ofMillis(1000 + random.nextInt(2000)));
          if (round.isEmpty()) {
            round.addAll(kinds);
            Collections.shuffle(round, random);
          }
          int movesBefore = moves.get();
          long lossesBefore = losses();
          Fault kind = round.remove(0);
          inject(kind, cluster, members);
          cluster.awaitHealthy(Duration.ofSeconds(30));
          long took = awaitFair(members, "the fault's end");
          late |= took < 0;
          Outcome outcome =
              new Outcome(kind, took, losses() - lossesBefore, moves.get() - movesBefore);
          outcomes.add(outcome);
          System.out.printf(", %d lost, %d moved%n", outcome.lost(), outcome.moved());
        }
      } finally {
        members.forEach(BalanceMember::close);
      }
    }
    return report(late, GROUP);
  }

  private void inject(Fault kind, EtcdCluster cluster, List<BalanceMember> members)
      throws InterruptedException {
    Duration hold = Duration.ofMillis(2000 + random.nextInt(4000));
    long start = System.nanoTime();
    String target;
    @Nullable String member = null;
    String note = "";
    switch (kind) {
      case PAUSE_MEMBER -> {
        EtcdMember etcd = cluster.member(random.nextInt(3));
        target = etcd.name();
        etcd.pause();
        pause(hold);
        etcd.resume();
      }
      case KILL_MEMBER -> {
        EtcdMember etcd = cluster.member(random.nextInt(3));
        target = etcd.name();
        etcd.kill();
        pause(hold);
        etcd.start();
      }
      case CUT_SHORT, CUT_LONG -> {
        BalanceMember victim = members.get(random.nextInt(members.size()));
        target = victim.id;
        member = victim.id;
        victim.cut();
        pause(kind == Fault.CUT_SHORT ? shortCut() : ttl.plusSeconds(2));
        victim.restore();
      }
      case RESTART -> {
        BalanceMember victim = members.get(random.nextInt(members.size()));
        target = victim.id;
        member = victim.id;
        victim.stop();
        victim.open();
      }
      case HEALTH_DOWN -> {
        BalanceMember victim = members.get(random.nextInt(members.size()));
        target = victim.id;
        member = victim.id;
        victim.healthDown();
        pause(hold);
        victim.healthUp();
      }
      case PRIORITY -> {
        target = "p";
        try (BalanceMember priority = priorityMember(cluster)) {
          for (int flap = 0; flap < 2; flap++) {
            priority.open();
            pause(Duration.ofMillis(500));
            priority.stop();
            pause(Duration.ofMillis(500));
          }
          priority.open();
          long limit = System.nanoTime() + fairWithin.plus(minTenure).toNanos();
          while (priority.leads() < offices && System.nanoTime() < limit) {
            Thread.sleep(10); // polling the member's state with a deadline
          }
          note =
              String.format(
                  " (p led %d/%d %d ms after its first join)",
                  priority.leads(), offices, (System.nanoTime() - start) / 1_000_000);
          pause(hold);
        }
      }
      default -> throw new IllegalStateException("unknown fault " + kind);
    }
    long heal = System.nanoTime();
    faults.add(new Injected(kind, target, member, start, heal));
    System.out.printf(
        "  +%5.1f s %-12s %-8s held %5d ms%s",
        at(start), kind, target, (heal - start) / 1_000_000, note);
  }

  /**
   * The longest cut its offices ride out, less 100 ms: the budget of an office of the soak's
   * settings, whenever in the renewal cycle the cut begins.
   */
  private Duration shortCut() {
    return TimingBudget.of(
            SessionOptions.defaults().withTtl(ttl), ElectionOptions.forOffice(GROUP + "-0"))
        .outageRiddenOut()
        .minusMillis(100);
  }

  /** A member of priority 1, above the others' 0, with its own proxies. */
  private BalanceMember priorityMember(EtcdCluster cluster) {
    return new BalanceMember(
        "p",
        cluster,
        log,
        GroupOptions.builder(GROUP)
            .candidateId("p")
            .priority(1)
            .delay(delay)
            .minTenure(minTenure)
            .build(),
        SessionOptions.defaults().withTtl(ttl),
        offices,
        moves);
  }

  /**
   * Waits for the fair share at most {@code fairWithin}; prints and returns how long it took, -1 if
   * late.
   */
  private long awaitFair(List<BalanceMember> members, String since) throws InterruptedException {
    long start = System.nanoTime();
    long limit = fairWithin.toNanos();
    while (!fair(members)) {
      if (System.nanoTime() - start > limit) {
        System.out.printf(
            ", NOT %s within %d ms of %s: %s",
            fairShare(), limit / 1_000_000, since, shares(members));
        // Wait on, so that the next fault does not start from a fault.
        long more = System.nanoTime();
        while (!fair(members) && System.nanoTime() - more < limit) {
          Thread.sleep(10);
        }
        System.out.printf(
            fair(members) ? " (%s %.0f ms after it)" : " (still not %s %.0f ms after it: %s)",
            fairShare(),
            (System.nanoTime() - start) / 1e6,
            shares(members));
        return -1;
      }
      Thread.sleep(10); // polling the members' state with a deadline
    }
    long took = System.nanoTime() - start;
    System.out.printf(
        "%s%s %5.0f ms after %s", faults.isEmpty() ? "  " : ", ", fairShare(), took / 1e6, since);
    return took;
  }

  /** Terms lost to something else than a hand-over, a resignation or a close. */
  private long losses() {
    return log.terms().stream()
        .filter(t -> t.reason() != null && !CHOSEN.contains(t.reason()))
        .count();
  }

  /** Every office led, and no member leading more than one office more than another. */
  private boolean fair(List<BalanceMember> members) {
    List<Integer> shares = shares(members);
    int sum = shares.stream().mapToInt(Integer::intValue).sum();
    return sum == offices && Collections.max(shares) - Collections.min(shares) <= 1;
  }

  /** The fair share as the figures print it: 4/4/4, or 3334/3333/3333. */
  private String fairShare() {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < MEMBERS; i++) {
      out.append(i == 0 ? "" : "/").append(offices / MEMBERS + (i < offices % MEMBERS ? 1 : 0));
    }
    return out.toString();
  }

  private static List<Integer> shares(List<BalanceMember> members) {
    return members.stream().map(BalanceMember::leads).toList();
  }

  private int report(boolean late, String group) {
    List<TermLog.Term> terms = log.terms();
    List<String> overlaps = TermLog.overlaps(terms);
    List<String> regressions = TermLog.tokenRegressions(terms);
    List<TermLog.Term> needless = needless(terms);
    System.out.printf(
        "group %s: %d faults, %d terms, %d moves%n",
        group, faults.size(), terms.size(), moves.get());
    for (Fault kind : Fault.values()) {
      List<Outcome> ofKind = outcomes.stream().filter(o -> o.kind() == kind).toList();
      List<Long> sorted =
          ofKind.stream().map(Outcome::nanosToFair).filter(t -> t >= 0).sorted().toList();
      System.out.printf(
          "  %-12s %2d  back to %s: p50 %5.0f ms, max %5.0f ms; lost %2d, moved %2d%n",
          kind,
          ofKind.size(),
          fairShare(),
          sorted.isEmpty() ? 0 : sorted.get(sorted.size() / 2) / 1e6,
          sorted.isEmpty() ? 0 : sorted.get(sorted.size() - 1) / 1e6,
          ofKind.stream().mapToLong(Outcome::lost).sum(),
          ofKind.stream().mapToInt(Outcome::moved).sum());
    }
    System.out.printf("  losses by reason: %s%n", lossesByReason(terms));
    System.out.printf("  unexplained overlaps: %d%n", overlaps.size());
    overlaps.forEach(o -> System.out.println("    " + o));
    System.out.printf("  token regressions: %d%n", regressions.size());
    regressions.forEach(r -> System.out.println("    " + r));
    System.out.printf("  needless losses: %d%n", needless.size());
    needless.forEach(
        t ->
            System.out.printf(
                "    %s %s token %d led from +%.1f s, %s at +%.1f s%n",
                t.office(), t.member(), t.token(), at(t.start()), t.reason(), at(t.end())));
    System.out.printf(
        "  shares late (not %s within %d s of a fault's end): %s%n",
        fairShare(), fairWithin.toSeconds(), late ? "yes" : "no");
    if (!overlaps.isEmpty() || !regressions.isEmpty()) {
      return 1;
    }
    return late || !needless.isEmpty() ? 2 : 0;
  }

  private static String lossesByReason(List<TermLog.Term> terms) {
    StringBuilder out = new StringBuilder();
    for (LossReason reason : LossReason.values()) {
      long count = terms.stream().filter(t -> t.reason() == reason).count();
      if (count > 0) {
        out.append(out.isEmpty() ? "" : ", ").append(reason).append(' ').append(count);
      }
    }
    return out.toString();
  }

  /**
   * Losses that are not a hand-over, a resignation or a close, and that ended outside every fault
   * that could explain them (an etcd fault for everyone, a long cut, a restart or a health fault
   * for its member) widened by TTL + 2 s. A short cut explains none: it lasts no longer than the
   * budget's outage ridden out.
   */
  private List<TermLog.Term> needless(List<TermLog.Term> terms) {
    long grace = ttl.plusSeconds(2).toNanos();
    return terms.stream()
        .filter(t -> t.reason() != null && !CHOSEN.contains(t.reason()))
        .filter(
            t ->
                faults.stream()
                    .noneMatch(
                        f ->
                            f.kind() != Fault.CUT_SHORT
                                && (f.member() == null || f.member().equals(t.member()))
                                && t.end() >= f.start()
                                && t.end() <= f.heal() + grace))
        .toList();
  }

  /** Seconds since the soak began. */
  private double at(long nanoTime) {
    return (nanoTime - origin) / 1e9;
  }

  private static void pause(Duration duration) throws InterruptedException {
    Thread.sleep(duration.toMillis()); // the soak's own pacing, not a wait for a state
  }
}
