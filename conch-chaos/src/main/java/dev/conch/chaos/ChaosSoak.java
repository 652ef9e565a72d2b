package dev.conch.chaos;

import dev.conch.chaos.SoakOptions.Fault;
import dev.conch.chaos.SoakReport.FaultRecord;
import dev.conch.test.EtcdCluster;
import dev.conch.test.EtcdMember;
import dev.conch.test.Etcdctl;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * A chaos soak: a real etcd (1 or 3 members), K {@code conch elect --restart} supervisors each
 * behind proxies of its own, and random faults for a chosen time; then the checks of {@link
 * SoakReport}. Run it from the repository root after the build:
 *
 * <pre>
 * mvn -q -pl conch-chaos exec:java -Dexec.args="--members 3 --minutes 10"
 * mvn -B -ntp -q -pl conch-chaos -am package -DskipTests -Dsoak -Dexec.args="--benign --minutes 10"
 * </pre>
 *
 * Arguments: {@code --members 1|3}, {@code --candidates K}, {@code --minutes M} or {@code --seconds
 * S}, {@code --ttl S}, {@code --kill-after-ms N}, {@code --seed N}, {@code --faults KIND,KIND},
 * {@code --apps N} (how many candidates are sample-app instances, default 1 when its jar is built),
 * {@code --launcher PATH}, {@code --no-db} (no PostgreSQL: the commands write nothing through the
 * fence); {@code --benign} for the steadiness soak: three members by default, only benign faults (a
 * member stalled for {@code --stall-ms N}, 1500 by default; the raft leader killed and restarted),
 * and supervisors with their own defaults unless {@code --ttl} or {@code --kill-after-ms} is given.
 * Exits 0 when every check holds, 1 when a safety check failed, 3 when the office's recorded
 * history disagrees with the terms the soak saw, 2 when a soak of benign faults only was safe but
 * lost a term.
 *
 * <p>Longer than most files here, on purpose: each fault is a few lines of injection and healing,
 * and the faults read best side by side.
 */
public final class ChaosSoak {

  /** The keys of the soak's election (office {@code chaos}, the default prefix). */
  private static final String ELECTION_PREFIX = "/conch/v1/elect/chaos/";

  private final SoakOptions options;
  private final Random random;
  private final Path dir;
  private final List<FaultRecord> faults = new ArrayList<>();

  ChaosSoak(SoakOptions options, Path dir) {
    this.options = options;
    this.random = new Random(options.seed());
    this.dir = dir;
  }

  public static void main(String[] args) throws Exception {
    SoakOptions options = parse(args);
    Path dir = Files.createTempDirectory("conch-chaos-");
    System.out.printf(
        "soak: %d member(s), %d candidates (%d of them sample apps), %d s, %s, seed %d,"
            + " faults %s, files in %s%n",
        options.members(),
        options.candidates(),
        options.apps(),
        options.duration().toSeconds(),
        options.specDefaults()
            ? "the supervisors' defaults (ttl 15 s, kill-after 5 s)"
            : "ttl " + options.ttl().toSeconds() + " s",
        options.seed(),
        options.faults(),
        dir);
    SoakReport report = new ChaosSoak(options, dir).run();
    System.out.print(report.render());
    System.exit(exitCode(report, options));
  }

  /**
   * 0 when every check holds; 1 when a safety check failed (an unexplained or unfenced overlap,
   * tokens out of order, an orphan); 3 when all were safe but the office's recorded history
   * disagrees with the terms the soak saw ({@link HistoryCheck}); 2 when all else held but a soak
   * of benign faults only saw a needless loss.
   */
  static int exitCode(SoakReport report, SoakOptions options) {
    if (!report.safe()) {
      return 1;
    }
    HistoryCheck history = report.history;
    if (history != null && !history.holds()) {
      return 3;
    }
    return options.onlyBenign() && !report.needlessLosses().isEmpty() ? 2 : 0;
  }

  /** Runs the soak and returns what it found; every process it started is gone when it returns. */
  SoakReport run() throws Exception {
    String runId = UUID.randomUUID().toString();
    long runStart;
    long runEnd;
    SoakDatabase.@Nullable Writes writes = null;
    SoakReport.EtcdProbe etcd;
    OfficeHistory recorded;
    try (EtcdCluster cluster = EtcdCluster.start(options.members());
        LeaseProbe probe = LeaseProbe.start(cluster);
        SoakDatabase database = options.database() ? SoakDatabase.start(dir) : null) {
      Map<String, String> environment = database != null ? database.environment() : Map.of();
      List<Candidate> candidates = new ArrayList<>();
      try {
        for (int i = 0; i < options.candidates(); i++) {
          Candidate candidate = new Candidate(i, cluster, options, dir, runId, environment);
          candidates.add(candidate);
          candidate.start();
        }
        // Faults start once every candidate is in line: a supervisor still starting when etcd
        // goes away exits 69 at its first read, as documented, and would miss the whole run.
        awaitEveryCandidateInLine(cluster, candidates, Duration.ofSeconds(120));
        if (options.onlyBenign()) {
          // A steadiness soak counts losses of a term: the first term must have begun.
          awaitFirstTerm(Duration.ofSeconds(90));
        }
        runStart = now();
        long until = System.nanoTime() + options.duration().toNanos();
        List<Fault> kinds = new ArrayList<>(options.faults());
        List<Fault> round = new ArrayList<>();
        while (System.nanoTime() < until) {
          pause(Duration.ofMillis(1000 + random.nextInt(2000)));
          Fault kind;
          if (options.onlyBenign()) {
            // In rounds, each kind once in a random order: a short run still sees every kind.
            if (round.isEmpty()) {
              round.addAll(kinds);
              Collections.shuffle(round, random);
            }
            kind = round.remove(0);
          } else {
            kind = kinds.get(random.nextInt(kinds.size()));
          }
          inject(kind, cluster, candidates);
          if (kind.benign()) {
            // A benign fault is over once the cluster is whole again; then give the leader a
            // renewal or two (half a TTL) so that each fault starts from a fresh lease.
            cluster.awaitHealthy(Duration.ofSeconds(30));
            candidates.forEach(Candidate::busiestMember); // a new window of traffic
            pause(options.ttl().dividedBy(2));
          } else {
            // Let the election settle before the next fault: a fault on a fault measures nothing.
            pause(options.ttl().plusSeconds(2));
          }
        }
        runEnd = now();
      } finally {
        candidates.forEach(Candidate::close);
      }
      // Every supervisor has stopped: nothing ends a term any more, and the last one's end was
      // written with the release of its key. Read once, when every recorded term has its end.
      List<SoakReport.Supervisor> supervisors = new ArrayList<>();
      candidates.forEach(c -> supervisors.addAll(c.supervisors()));
      recorded =
          OfficeHistory.await(cluster, OfficeHistory.SETTLE, supervisors, options.priorities());
      if (database != null) {
        writes = database.writes(dir);
      }
      etcd = SoakReport.EtcdProbe.of(probe.answers(), options.ttl(), options.killAfter());
    }
    int orphans = Orphans.await(runId, Duration.ofSeconds(10));
    return new SoakReport(
        dir,
        faults,
        orphans,
        runStart,
        runEnd,
        options.ttl(),
        options.onlyBenign(),
        writes,
        etcd,
        recorded);
  }

  private void inject(Fault kind, EtcdCluster cluster, List<Candidate> candidates)
      throws Exception {
    long start = now();
    Duration hold = Duration.ofMillis(2000 + random.nextInt(4000));
    switch (kind) {
      case KILL_SUPERVISOR -> {
        Candidate victim = leaderOr(candidates);
        victim.kill();
        start = now();
        victim.start();
        record(kind, "supervisor " + victim.index, victim.index, start, now());
      }
      case FREEZE_SUPERVISOR -> {
        Candidate victim = leaderOr(candidates);
        victim.signal("STOP");
        pause(options.ttl().plusSeconds(2)); // past its deadline: a successor takes over
        victim.signal("CONT");
        record(kind, "supervisor " + victim.index, victim.index, start, now());
      }
      case PARTITION -> {
        Candidate victim = leaderOr(candidates);
        victim.cutOff();
        pause(hold.plus(options.ttl()));
        victim.reconnect();
        record(kind, "supervisor " + victim.index, victim.index, start, now());
      }
      case PAUSE_MEMBER -> {
        EtcdMember member = cluster.member(random.nextInt(cluster.members().size()));
        member.pause();
        pause(hold);
        member.resume();
        record(kind, member.name(), -1, start, now());
      }
      case RESTART_MEMBER -> {
        EtcdMember member = cluster.member(random.nextInt(cluster.members().size()));
        member.stop();
        pause(hold);
        member.start();
        record(kind, member.name(), -1, start, now());
      }
      case KILL_MEMBER -> {
        EtcdMember member = cluster.member(random.nextInt(cluster.members().size()));
        member.kill();
        pause(hold);
        member.start();
        record(kind, member.name(), -1, start, now());
      }
      case LOSE_QUORUM -> {
        int keep = random.nextInt(3);
        List<EtcdMember> stopped = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
          if (i != keep) {
            cluster.member(i).stop();
            stopped.add(cluster.member(i));
          }
        }
        pause(hold);
        stopped.forEach(EtcdMember::start);
        record(kind, "members except " + cluster.member(keep).name(), -1, start, now());
      }
      case STALL_RAFT_LEADER -> {
        int raftLeader = cluster.leaderIndex();
        int index = raftLeader >= 0 ? raftLeader : random.nextInt(cluster.members().size());
        stall(kind, cluster, index, describe(cluster, index, raftLeader, -1, null));
      }
      case STALL_CLIENT_MEMBER -> {
        Candidate leader = leaderOr(candidates);
        int index = leader.busiestMember();
        int raftLeader = cluster.leaderIndex();
        stall(kind, cluster, index, describe(cluster, index, raftLeader, index, leader));
      }
      case KILL_RAFT_LEADER -> {
        int raftLeader = cluster.leaderIndex();
        int index = raftLeader >= 0 ? raftLeader : random.nextInt(cluster.members().size());
        EtcdMember member = cluster.member(index);
        member.kill();
        member.start();
        record(kind, describe(cluster, index, raftLeader, -1, null), -1, start, now());
      }
    }
  }

  /** SIGSTOP one member for the stall time, then SIGCONT. */
  private void stall(Fault kind, EtcdCluster cluster, int index, String target)
      throws InterruptedException {
    EtcdMember member = cluster.member(index);
    long start = now();
    member.pause();
    pause(options.stall());
    member.resume();
    record(kind, target, -1, start, now());
  }

  /** A member's name and its roles: raft leader, the leading supervisor's busiest member. */
  private static String describe(
      EtcdCluster cluster, int index, int raftLeader, int busiest, @Nullable Candidate supervisor) {
    List<String> roles = new ArrayList<>();
    if (index == raftLeader) {
      roles.add("raft leader");
    } else if (raftLeader < 0) {
      roles.add("no raft leader known, random");
    }
    if (index == busiest && supervisor != null) {
      roles.add("busiest of supervisor " + supervisor.index);
    }
    return cluster.member(index).name()
        + (roles.isEmpty() ? "" : " (" + String.join(", ", roles) + ")");
  }

  /** Waits until some supervised command has started: the first term. */
  private void awaitEveryCandidateInLine(
      EtcdCluster cluster, List<Candidate> candidates, Duration timeout)
      throws InterruptedException {
    int count = candidates.size();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Etcdctl.Result keys =
          Etcdctl.run(
              cluster.endpoints(),
              Duration.ofSeconds(10),
              "get",
              "--prefix",
              "--keys-only",
              ELECTION_PREFIX);
      long inLine =
          keys.succeeded() ? keys.stdout().lines().filter(line -> !line.isBlank()).count() : 0;
      if (inLine >= count) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            inLine
                + " of "
                + count
                + " candidates in line after "
                + timeout
                + ": see the supervisor logs in "
                + dir
                + candidates.stream()
                    .map(Candidate::describe)
                    .collect(java.util.stream.Collectors.joining("")));
      }
      Thread.sleep(200); // polling etcd with a deadline
    }
  }

  private void awaitFirstTerm(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (Orphans.latestBeat(dir) < 0) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "no candidate led within " + timeout + ": see the supervisor logs in " + dir);
      }
      Thread.sleep(100); // polling the soak's files with a deadline
    }
  }

  private void record(Fault kind, String target, int candidate, long start, long heal) {
    faults.add(new FaultRecord(kind, target, candidate, start, heal));
    System.out.printf(
        "  %s %-19s %-44s held %5d ms%n",
        SoakReportText.clock(heal), kind, target, (heal - start) / 1_000_000);
  }

  /** The candidate whose command beat last, or a random one when none runs. */
  private Candidate leaderOr(List<Candidate> candidates) {
    int leader = Orphans.latestBeat(dir);
    return leader >= 0 && leader < candidates.size()
        ? candidates.get(leader)
        : candidates.get(random.nextInt(candidates.size()));
  }

  /** The wall clock in epoch nanoseconds, as the commands' files and the fault log stamp it. */
  static long now() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
  }

  private static void pause(Duration duration) throws InterruptedException {
    Thread.sleep(duration.toMillis()); // the soak's own pacing, not a wait for a state
  }

  private static Fault fault(String name) {
    try {
      return Fault.valueOf(name.trim().toUpperCase(java.util.Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "unknown fault '" + name + "'; known: " + java.util.Arrays.toString(Fault.values()), e);
    }
  }

  static SoakOptions parse(String[] args) {
    Integer members = null;
    int candidates = 3;
    Duration duration = Duration.ofMinutes(1);
    Duration ttl = null;
    Duration killAfter = null;
    Duration stall = SoakOptions.DEFAULT_STALL;
    boolean benign = false;
    boolean database = true;
    boolean priorities = false;
    long seed = System.currentTimeMillis();
    Path launcher = Path.of("bin/conch").toAbsolutePath();
    java.util.Set<Fault> faults = null;
    int apps = 1;
    Path sampleApp = Path.of("conch-sample-app/target/conch-sample-app.jar").toAbsolutePath();
    for (int i = 0; i < args.length; i++) {
      String value = i + 1 < args.length ? args[i + 1] : "";
      switch (args[i]) {
        case "--members" -> members = Integer.parseInt(value);
        case "--candidates" -> candidates = Integer.parseInt(value);
        case "--minutes" -> duration = Duration.ofMinutes(Long.parseLong(value));
        case "--seconds" -> duration = Duration.ofSeconds(Long.parseLong(value));
        case "--ttl" -> ttl = Duration.ofSeconds(Long.parseLong(value));
        case "--kill-after-ms" -> killAfter = Duration.ofMillis(Long.parseLong(value));
        case "--stall-ms" -> stall = Duration.ofMillis(Long.parseLong(value));
        case "--benign" -> {
          benign = true;
          i--; // a flag: no value
        }
        case "--no-db" -> {
          database = false;
          i--;
        }
        case "--priorities" -> {
          priorities = true;
          i--;
        }
        case "--seed" -> seed = Long.parseLong(value);
        case "--launcher" -> launcher = Path.of(value).toAbsolutePath();
        case "--apps" -> apps = Integer.parseInt(value);
        case "--faults" -> {
          faults = java.util.EnumSet.noneOf(Fault.class);
          for (String name : value.split(",")) {
            faults.add(fault(name));
          }
        }
        default ->
            throw new IllegalArgumentException(
                "unknown argument "
                    + args[i]
                    + "; accepted: --members 1|3, --candidates K, --apps N, --minutes M,"
                    + " --seconds S, --ttl S, --kill-after-ms N, --seed N, --faults KIND,...,"
                    + " --benign, --stall-ms N, --launcher PATH, --no-db, --priorities");
      }
      i++;
    }
    if (!Files.isExecutable(launcher)) {
      throw new UncheckedIOException(
          new IOException(
              launcher + " is not executable: run from the repository root after the build"));
    }
    if (members == null) {
      members = benign ? 3 : 1; // a raft leader to lose needs three members
    }
    // The steadiness soak runs the supervisors with their own defaults unless told otherwise.
    boolean specDefaults = benign && ttl == null && killAfter == null;
    if (ttl == null) {
      ttl = specDefaults ? SoakOptions.DEFAULT_TTL : Duration.ofSeconds(3);
    }
    if (killAfter == null) {
      killAfter = specDefaults ? SoakOptions.DEFAULT_KILL_AFTER : Duration.ofMillis(500);
    }
    if (faults == null) {
      faults = benign ? SoakOptions.benignFaults(members) : SoakOptions.allFaults(members);
    }
    return new SoakOptions(
        members,
        candidates,
        duration,
        ttl,
        killAfter,
        seed,
        faults,
        launcher,
        Files.isRegularFile(sampleApp) ? apps : 0,
        sampleApp,
        specDefaults,
        stall,
        database,
        priorities);
  }
}
