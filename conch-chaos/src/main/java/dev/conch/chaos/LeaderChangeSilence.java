package dev.conch.chaos;

import dev.conch.test.EtcdCluster;
import dev.conch.test.EtcdMember;
import dev.conch.test.Etcdctl;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * How long etcd answers no lease renewal (and no linearizable read) after a change of its raft
 * leader, and how long conch takes from the same event to its own first answered round: the
 * measurement behind the renewal budget's defaults (docs/chaos.md, "A raft leader change").
 *
 * <p>A 3-member cluster of the {@code etcd} binary on free loopback ports; three kinds of event,
 * each repeated: the raft leader SIGKILLed (then restarted), SIGSTOPped for 1.5 s, and moved away
 * gracefully ({@code etcdctl move-leader}). etcd's side is measured by probes of their own, one
 * client per member, each sending a renewal of a probe lease and a linearizable read every 25 ms
 * without waiting for the last one: etcd's silence after an event is the time until the first
 * answer to a request sent after it. conch's side is three sessions holding an office: one with the
 * CLI's defaults (TTL 15 s, kill-after 5 s), one with its defaults before 2026-12 (TTL 10 s) and
 * one with the Spring defaults (TTL 10 s, stop timeout 1 s): the time until the term's deadline D
 * first moves on (a renewal and the confirming read of its key both answered), the lowest slack
 * before the term would have ended (D minus its loss lead), and every term lost.
 *
 * <pre>
 * mvn -B -ntp -q -pl conch-chaos -am package -DskipTests -Dsoak \
 *   -Dsoak.main=dev.conch.chaos.LeaderChangeSilence -Dexec.args="--events 20"
 * </pre>
 *
 * <p>etcd's side is measured by {@link SilenceProbe}, conch's by {@link SilenceOffice}.
 */
public final class LeaderChangeSilence {

  /** The events measured. */
  enum Kind {
    KILL,
    STOP,
    MOVE
  }

  private static final Duration STALL = Duration.ofMillis(1500);
  private static final Duration SETTLE = Duration.ofSeconds(3);
  private static final Duration EVENT_WINDOW = Duration.ofSeconds(12);

  private final EtcdCluster cluster;
  private final List<SilenceProbe> probes = new ArrayList<>();
  private final List<SilenceOffice> offices = new ArrayList<>();

  private LeaderChangeSilence(EtcdCluster cluster) {
    this.cluster = cluster;
  }

  public static void main(String[] args) throws Exception {
    int events = 20;
    List<Kind> kinds = List.of(Kind.values());
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--events" -> events = Integer.parseInt(args[++i]);
        case "--kinds" -> {
          List<Kind> chosen = new ArrayList<>();
          for (String k : args[++i].split(",")) {
            chosen.add(Kind.valueOf(k.trim().toUpperCase(Locale.ROOT)));
          }
          kinds = chosen;
        }
        default ->
            throw new IllegalArgumentException(
                "unknown argument '" + args[i] + "': --events N, --kinds kill,stop,move");
      }
    }
    try (EtcdCluster cluster = EtcdCluster.start(3)) {
      LeaderChangeSilence bench = new LeaderChangeSilence(cluster);
      try {
        System.out.print(bench.run(kinds, events));
      } finally {
        bench.close();
      }
    }
    System.exit(0);
  }

  private String run(List<Kind> kinds, int events) throws Exception {
    for (EtcdMember member : cluster.members()) {
      probes.add(SilenceProbe.start(member.endpoint()));
    }
    // conch elect's defaults (TTL 15 s, kill-after 5 s + 500 ms slack), its defaults before
    // 2026-12 (TTL 10 s), and a Spring application's (TTL 10 s, stop timeout 1 s).
    offices.add(
        SilenceOffice.start(cluster, "cli", Duration.ofSeconds(15), Duration.ofMillis(5500)));
    offices.add(
        SilenceOffice.start(cluster, "cli-ttl10", Duration.ofSeconds(10), Duration.ofMillis(5500)));
    offices.add(
        SilenceOffice.start(cluster, "spring", Duration.ofSeconds(10), Duration.ofSeconds(1)));
    Map<Kind, List<Sample>> samples = new EnumMap<>(Kind.class);
    for (int round = 0; round < events; round++) {
      for (Kind kind : kinds) {
        settle();
        Sample sample = once(kind);
        samples.computeIfAbsent(kind, k -> new ArrayList<>()).add(sample);
        System.err.println(kind + " #" + (round + 1) + ": " + sample);
      }
    }
    return report(samples);
  }

  /** Waits until all three members are up, a raft leader is known and every office leads. */
  private void settle() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      boolean up = cluster.members().stream().allMatch(EtcdMember::isHealthy);
      boolean led = offices.stream().allMatch(office -> office.election.isLeader());
      if (up && led && cluster.leaderIndex() >= 0) {
        break;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("cluster or offices did not settle within 60 s");
      }
      Thread.sleep(100);
    }
    Thread.sleep(SETTLE.toMillis()); // a quiet stretch between events, not a wait for a state
  }

  private Sample once(Kind kind) throws InterruptedException {
    int leader = cluster.leaderIndex();
    EtcdMember member = cluster.member(leader);
    long[] failuresBefore = new long[offices.size()];
    for (int i = 0; i < offices.size(); i++) {
      offices.get(i).lowestSlack = Long.MAX_VALUE;
      failuresBefore[i] = offices.get(i).session.renewalFailures();
    }
    long eventAt = System.nanoTime();
    switch (kind) {
      case KILL -> member.kill();
      case STOP -> {
        member.pause();
        eventAt = System.nanoTime(); // once the signal was sent: kill(1) itself takes a few ms
      }
      case MOVE -> moveLeaderFrom(leader);
    }
    final long at = eventAt;
    if (kind == Kind.STOP) {
      Thread.sleep(STALL.toMillis());
      member.resume();
    }
    long until = at + EVENT_WINDOW.toNanos();
    while (System.nanoTime() - until < 0) {
      boolean answered =
          probes.stream()
                  .allMatch(probe -> probe.firstAnswerAfter(at, SilenceProbe.RENEW).isPresent())
              && offices.stream().allMatch(office -> office.firstRoundAfter(at).isPresent());
      if (answered && System.nanoTime() - at > TimeUnit.SECONDS.toNanos(5)) {
        break;
      }
      Thread.sleep(20);
    }
    if (kind == Kind.KILL) {
      member.start();
    }
    Sample sample = new Sample(kind);
    sample.renew = first(at, SilenceProbe.RENEW);
    sample.read = first(at, SilenceProbe.READ);
    int killed = kind == Kind.KILL ? leader : -1;
    sample.renewWorst = worst(at, SilenceProbe.RENEW, killed);
    sample.readWorst = worst(at, SilenceProbe.READ, killed);
    long etcdBack = Math.max(sample.renew, sample.read);
    for (int i = 0; i < offices.size(); i++) {
      SilenceOffice office = offices.get(i);
      long round = office.firstRoundAfter(at).orElse(-1L);
      sample.conch.add(round);
      sample.slack.add(office.lowestSlack);
      sample.losses.add(office.lossesSince(at));
      // conch's own part: from etcd answering again to conch's first answered round, counted only
      // where the session was failing then (else it was merely not due yet).
      boolean failing = office.session.renewalFailures() > failuresBefore[i];
      sample.lag.add(failing && round >= 0 && etcdBack >= 0 ? Math.max(0, round - etcdBack) : -1L);
    }
    return sample;
  }

  /** The first answer of any member's probe to a request of {@code what} sent after {@code at}. */
  private long first(long at, int what) {
    return probes.stream()
        .map(probe -> probe.firstAnswerAfter(at, what))
        .flatMap(Optional::stream)
        .min(Long::compare)
        .orElse(-1L);
  }

  /**
   * The last of the members (but {@code skipped}, a killed one) to answer a request of {@code what}
   * sent after {@code at}: a member whose answers stall longer than the others' shows here.
   */
  private long worst(long at, int what, int skipped) {
    long worst = 0;
    for (int i = 0; i < probes.size(); i++) {
      if (i != skipped) {
        worst = Math.max(worst, probes.get(i).firstAnswerAfter(at, what).orElse(Long.MAX_VALUE));
      }
    }
    return worst;
  }

  private void moveLeaderFrom(int leader) {
    int target = (leader + 1) % 3;
    Etcdctl.Result list =
        Etcdctl.run(cluster.member(leader).endpoint(), Duration.ofSeconds(5), "member", "list");
    String id = null;
    for (String line : list.stdout().split("\n")) {
      String[] fields = line.split(",\\s*");
      if (fields.length > 2 && fields[2].equals(cluster.member(target).name())) {
        id = fields[0];
      }
    }
    if (id == null) {
      throw new IllegalStateException("no member id for " + cluster.member(target) + ": " + list);
    }
    Etcdctl.Result moved =
        Etcdctl.run(cluster.member(leader).endpoint(), Duration.ofSeconds(10), "move-leader", id);
    if (!moved.succeeded()) {
      throw new IllegalStateException("move-leader failed: " + moved);
    }
  }

  private String report(Map<Kind, List<Sample>> samples) {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "etcd %s, 3 members on loopback. Times in ms from the event, median / p99 / max: etcd's"
                + " first answer to a request sent after it (any member; the slowest member to"
                + " answer); conch's first round answered (renewal and confirming read) after it,"
                + " and its lag: from etcd's answer to that round, where conch's renewals were"
                + " failing (!n: events without one)."
                + " Slack: the term's lowest time left before it would end, min / median.%n",
            etcdVersion()));
    for (Map.Entry<Kind, List<Sample>> entry : samples.entrySet()) {
      List<Sample> list = entry.getValue();
      out.append(
          String.format(
              Locale.ROOT,
              "%n%s, %d events%n  etcd renewal %s (slowest member %s); linearizable read %s"
                  + " (slowest member %s)%n",
              entry.getKey().name().toLowerCase(Locale.ROOT),
              list.size(),
              stats(list, s -> s.renew),
              stats(list, s -> s.renewWorst),
              stats(list, s -> s.read),
              stats(list, s -> s.readWorst)));
      for (int i = 0; i < offices.size(); i++) {
        int index = i;
        out.append(
            String.format(
                Locale.ROOT,
                "  conch %-28s first round %-20s lag %-20s slack %-14s terms lost %d%n",
                offices.get(i).name,
                stats(list, s -> s.conch.get(index)),
                stats(list, s -> s.lag.get(index)),
                lowest(list, s -> s.slack.get(index)),
                list.stream().mapToInt(s -> s.losses.get(index)).sum()));
      }
    }
    return out.toString();
  }

  private interface Figure {
    long of(Sample sample);
  }

  private static String stats(List<Sample> samples, Figure figure) {
    List<Long> values = new ArrayList<>();
    int missing = 0;
    for (Sample sample : samples) {
      long v = figure.of(sample);
      if (v < 0 || v == Long.MAX_VALUE) {
        missing++;
      } else {
        values.add(v);
      }
    }
    if (values.isEmpty()) {
      return "none";
    }
    values.sort(Long::compare);
    long median = values.get(values.size() / 2);
    long p99 = values.get(Math.min(values.size() - 1, (int) Math.ceil(values.size() * 0.99) - 1));
    long max = values.get(values.size() - 1);
    return ms(median) + " / " + ms(p99) + " / " + ms(max) + (missing > 0 ? " !" + missing : "");
  }

  /** For the slack, where the low end is what matters: min / median. */
  private static String lowest(List<Sample> samples, Figure figure) {
    List<Long> values = new ArrayList<>();
    for (Sample sample : samples) {
      long v = figure.of(sample);
      if (v != Long.MAX_VALUE) {
        values.add(v);
      }
    }
    if (values.isEmpty()) {
      return "none";
    }
    values.sort(Long::compare);
    return ms(values.get(0)) + " / " + ms(values.get(values.size() / 2));
  }

  private static String ms(long nanos) {
    return Long.toString(TimeUnit.NANOSECONDS.toMillis(nanos));
  }

  private static String etcdVersion() {
    try {
      Process version = new ProcessBuilder("etcd", "--version").redirectErrorStream(true).start();
      String first = new String(version.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      version.waitFor(5, TimeUnit.SECONDS);
      return first.lines().findFirst().orElse("?").replace("etcd Version: ", "");
    } catch (Exception e) {
      return "?";
    }
  }

  private void close() {
    offices.forEach(SilenceOffice::close);
    probes.forEach(SilenceProbe::close);
  }

  /** One event's figures, in nanoseconds from the event; -1 where nothing was answered. */
  private static final class Sample {
    final Kind kind;
    long renew;
    long read;
    long renewWorst;
    long readWorst;
    final List<Long> conch = new ArrayList<>();
    final List<Long> slack = new ArrayList<>();
    final List<Long> lag = new ArrayList<>();
    final List<Integer> losses = new ArrayList<>();

    Sample(Kind kind) {
      this.kind = kind;
    }

    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "renewal %d ms (slowest member %s), read %d ms (slowest member %s), conch %s ms,"
              + " slack %s ms, lost %s",
          TimeUnit.NANOSECONDS.toMillis(renew),
          renewWorst == Long.MAX_VALUE ? "none" : ms(renewWorst),
          TimeUnit.NANOSECONDS.toMillis(read),
          readWorst == Long.MAX_VALUE ? "none" : ms(readWorst),
          conch.stream().map(n -> ms(n)).toList(),
          slack.stream().map(n -> n == Long.MAX_VALUE ? "-" : ms(n)).toList(),
          losses);
    }
  }
}
