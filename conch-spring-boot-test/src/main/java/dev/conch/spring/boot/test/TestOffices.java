package dev.conch.spring.boot.test;

import dev.conch.Election;
import dev.conch.ElectionEvent;
import dev.conch.ElectionOptions;
import dev.conch.Holder;
import dev.conch.Leadership;
import dev.conch.State;
import dev.conch.local.LocalOffices;
import dev.conch.spring.Elections;
import dev.conch.spring.health.CandidacyPauses;
import dev.conch.spring.health.HealthGatedCandidacy;
import dev.conch.spring.leaderonly.InMemoryJobRecords;
import dev.conch.spring.leaderonly.JobRecord;
import dev.conch.spring.leaderonly.LeaderOnlyJobs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.awaitility.Awaitility;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.DisposableBean;

/**
 * Scripts the leadership of this application's offices in a test, on the in-memory offices that
 * {@link AutoConfigureTestOffices @AutoConfigureTestOffices} puts in place of etcd. Each transition
 * returns once it happened: once this instance's term ended (its lose hooks ran, its lifecycle
 * beans stopped, its loss event was sent) or once it leads (its acquire hooks ran). Each wait is
 * bounded by the timeout and fails the test with what it saw.
 *
 * <p>When the context is ready, and again after each test method, every office is in the start
 * state: this instance leads it, or (with {@code @AutoConfigureTestOffices(leading = false)}) it
 * follows {@link #OTHER_CANDIDATE}; no other candidate is left and every count is zero.
 *
 * <p>After {@link #revoke} or {@link #expire} the office stays vacant (this instance campaigns but
 * does not lead) until {@link #grant}; after {@link #failRenewal} this instance campaigns again
 * and, being the only candidate, soon leads again with a new token; {@link #electOther} keeps it
 * out until {@link #grant}.
 *
 * <p>{@link #healthDown} and {@link #healthUp} make a required health indicator count as DOWN or UP
 * without touching what it checks; the candidacy of each office that requires it pauses and resumes
 * as in production, quarantine included.
 *
 * <p>The leader-only calls are counted by method ({@link #runs(Class, String)}, {@link
 * #skips(Class, String)}, {@link #awaitRuns(Class, String, long)}), by office ({@link #officeRuns},
 * ...) and by {@code LeaderOnlyTasks} task ({@link #taskRuns}, ...). A run counts once it has
 * ended, with all conch does around it: after {@code awaitRuns} what it did is there to check.
 *
 * <p>Missed firings of {@code @Scheduled @LeaderOnly} jobs are driven the same way, without etcd:
 * {@link #expire} (or {@link #revoke}) holds the office vacant while the schedule's firings pass
 * (they are skipped: wait on {@link #skips}), {@link #grant} makes this instance lead again, and
 * the job's misfire policy runs after the acquire hooks, on conch's own thread: wait for it with
 * {@link #awaitLastRun}. The records are kept in memory ({@code InMemoryJobRecords}), fenced by the
 * in-memory offices' current leader, and forgotten with every other count after each test.
 *
 * <p>Why one file of over 400 lines: this is the test kit's one entry point, what a test injects
 * and reads top to bottom. Its methods are short, each a documented call into what does the work
 * (the in-memory offices, the health gate, {@code LeaderOnlyCounts}, the job records); splitting it
 * would give a test two or three beans to learn for one job.
 */
public final class TestOffices implements DisposableBean {

  /** How long each transition may take: 10 s. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

  /** The candidate that leads every office in the follower start state. */
  public static final String OTHER_CANDIDATE = "other-instance";

  private final LocalOffices store;

  private final Supplier<Elections> elections;

  private final Duration timeout;

  private final boolean leading;

  private final LeaderOnlyCounts counts;

  private final Supplier<@Nullable HealthGatedCandidacy> health;

  private final Supplier<@Nullable CandidacyPauses> pauses;

  private final Map<String, Election> others = new ConcurrentHashMap<>();

  private final Map<String, Set<Long>> ended = new ConcurrentHashMap<>();

  private Supplier<@Nullable LeaderOnlyJobs> jobs = () -> null;

  private Supplier<@Nullable InMemoryJobRecords> records = () -> null;

  TestOffices(
      LocalOffices store,
      Supplier<Elections> elections,
      Duration timeout,
      boolean leading,
      LeaderOnlyCounts counts,
      Supplier<@Nullable HealthGatedCandidacy> health,
      Supplier<@Nullable CandidacyPauses> pauses) {
    this.store = store;
    this.elections = elections;
    this.timeout = timeout;
    this.leading = leading;
    this.counts = counts;
    this.health = health;
    this.pauses = pauses;
  }

  /** The in-memory offices, for what this class does not script. */
  public LocalOffices store() {
    return this.store;
  }

  /** This instance's candidate for {@code office}. */
  public Election election(String office) {
    return this.elections.get().get(office);
  }

  /** The default office ({@code conch.office}, else {@code spring.application.name}). */
  public String defaultOffice() {
    return this.elections
        .get()
        .defaultOffice()
        .orElseThrow(() -> new IllegalStateException("No default office is configured"));
  }

  /** Waits until this instance leads {@code office} (its acquire hooks ran); returns the term. */
  public Leadership awaitLeading(String office) {
    Election election = election(office);
    await(() -> election.leadership().isPresent(), "this instance to lead office " + office);
    return election.leadership().orElseThrow();
  }

  /** Waits until this instance follows another leader of {@code office}; returns the leader. */
  public Holder awaitFollowing(String office) {
    Election election = election(office);
    await(
        () -> election.state() == State.FOLLOWING && this.store.leader(office).isPresent(),
        "this instance to follow in office " + office);
    return this.store.leader(office).orElseThrow();
  }

  /**
   * Makes this instance lead {@code office}, taking it from another candidate if one leads, or
   * opening it after {@link #revoke} or {@link #expire}; returns once its acquire hooks ran.
   */
  public Leadership grant(String office) {
    Election election = election(office);
    // The candidates of the in-memory offices are conch's own: each has an id.
    String id = Objects.requireNonNull(election.candidate().id());
    await(
        () -> election.isLeader() || this.store.grant(office, id),
        "this instance to be waiting in office " + office);
    return awaitLeading(office);
  }

  /**
   * Ends this instance's term of {@code office} as if its key were deleted ({@code KEY_DELETED})
   * and keeps the office vacant until {@link #grant}; returns once the term ended.
   *
   * @return the term that ended
   */
  public Leadership revoke(String office) {
    return end(
        office,
        () -> {
          this.store.holdVacant(office);
          this.store.revoke(office);
        });
  }

  /**
   * Ends this instance's term as if its lease expired ({@code LEASE_EXPIRED}) and keeps the office
   * vacant until {@link #grant}.
   */
  public Leadership expire(String office) {
    return end(
        office,
        () -> {
          this.store.holdVacant(office);
          this.store.expire(office);
        });
  }

  /**
   * Ends this instance's term as if renewing its lease failed ({@code RENEWAL_FAILED}); it
   * campaigns again and soon leads again, as after a passing outage.
   */
  public Leadership failRenewal(String office) {
    return end(office, () -> this.store.failRenewal(office));
  }

  /**
   * Makes another candidate, {@code candidateId}, lead {@code office} with a new token (ending this
   * instance's term if it led); this instance follows it.
   *
   * @return the other leader: its {@link Holder#rev()} is its fencing token
   */
  public Holder electOther(String office, String candidateId) {
    Election election = election(office);
    watch(office, election);
    long before = election.token().orElse(0);
    Election other =
        this.others.computeIfAbsent(
            office + "/" + candidateId,
            key ->
                this.store.election(
                    ElectionOptions.builder(office).candidateId(candidateId).build()));
    other.start();
    await(
        () -> other.isLeader() || this.store.grant(office, candidateId),
        candidateId + " to be waiting in office " + office);
    await(other::isLeader, candidateId + " to lead office " + office);
    if (before != 0) {
      awaitEnded(office, before);
    }
    return this.store.leader(office).orElseThrow();
  }

  /**
   * Makes the health contributor or group {@code indicator} count as DOWN, whatever it reports, for
   * every office that requires it ({@code conch.health.require}, {@code
   * conch.offices.<name>.require-health}); returns once the candidacy for each is paused: a term it
   * led has ended (as a resign ends it) and it does not campaign.
   *
   * @throws IllegalArgumentException when no office requires {@code indicator}
   */
  public void healthDown(String indicator) {
    List<String> offices = requiring(indicator);
    health().simulate(indicator, "DOWN");
    CandidacyPauses paused = Objects.requireNonNull(this.pauses.get());
    for (String office : offices) {
      Election election = election(office);
      await(
          () -> paused.pause(office).isPresent() && election.state() == State.DENIED,
          "the candidacy for office " + office + " to pause as " + indicator + " is DOWN");
    }
  }

  /**
   * Makes {@code indicator} count as UP again; returns once no office is paused because of it. An
   * office that this instance led when it turned DOWN stays out for its quarantine ({@code
   * conch.health.quarantine}, 10 s): set {@code conch.health.quarantine=0s} in a test that wants it
   * to lead again at once.
   *
   * @throws IllegalArgumentException when no office requires {@code indicator}
   */
  public void healthUp(String indicator) {
    List<String> offices = requiring(indicator);
    health().simulate(indicator, "UP");
    CandidacyPauses paused = Objects.requireNonNull(this.pauses.get());
    for (String office : offices) {
      await(
          () ->
              paused
                  .pause(office)
                  .map(pause -> pause.healthy() || !pause.indicator().equals(indicator))
                  .orElse(true),
          "the candidacy for office " + office + " to no longer wait for " + indicator);
    }
  }

  private HealthGatedCandidacy health() {
    HealthGatedCandidacy candidacy = this.health.get();
    if (candidacy == null) {
      throw new IllegalStateException(
          "No health-gated candidacy in this context: it needs conch.health.require (or"
              + " conch.offices.<name>.require-health) and Spring Boot's health support");
    }
    return candidacy;
  }

  private List<String> requiring(String indicator) {
    CandidacyPauses paused = this.pauses.get();
    List<String> offices = new ArrayList<>();
    Set<String> required = new TreeSet<>();
    for (String office : this.elections.get().offices()) {
      List<String> names =
          (paused != null)
              ? paused
                  .requirement(office)
                  .map(CandidacyPauses.Requirement::indicators)
                  .orElse(List.of())
              : List.of();
      required.addAll(names);
      if (names.contains(indicator)) {
        offices.add(office);
      }
    }
    if (offices.isEmpty()) {
      throw new IllegalArgumentException(
          "No office requires health indicator '"
              + indicator
              + "'; required: "
              + (required.isEmpty() ? "none (conch.health.require is not set)" : required));
    }
    return offices;
  }

  /**
   * How often {@code @LeaderOnly} method {@code method} of {@code type} ran: the runs that ended
   * (returned or threw), with all conch does around them (a scheduled job's record of how it ended
   * is written), not those still running.
   *
   * @throws IllegalArgumentException when {@code type} has no {@code @LeaderOnly} method so named;
   *     the message names the methods there are
   */
  public long runs(Class<?> type, String method) {
    return this.counts.method(type, method).runs();
  }

  /**
   * How often a call of {@code @LeaderOnly} method {@code method} of {@code type} was skipped: this
   * instance did not lead its office, or another term had claimed the job's firing.
   *
   * @throws IllegalArgumentException when {@code type} has no {@code @LeaderOnly} method so named
   */
  public long skips(Class<?> type, String method) {
    return this.counts.method(type, method).skips();
  }

  /**
   * Waits until {@code @LeaderOnly} method {@code method} of {@code type} ran at least {@code
   * times} times, counting runs that ended as {@link #runs(Class, String)} does: once it returns,
   * what the runs did is there to check.
   *
   * @throws IllegalArgumentException at once when {@code type} has no {@code @LeaderOnly} method so
   *     named
   */
  public void awaitRuns(Class<?> type, String method, long times) {
    LeaderOnlyCounts.Counts.Count count = this.counts.method(type, method);
    await(
        () -> count.runs() >= times,
        type.getSimpleName() + "." + method + "() to have run " + times + " times");
  }

  /**
   * How often the {@code @LeaderOnly} methods and leader-only tasks of {@code office} ran (runs
   * that ended, as {@link #runs(Class, String)} counts them).
   *
   * @throws IllegalArgumentException when there is no such office
   */
  public long officeRuns(String office) {
    return this.counts.office(office).runs();
  }

  /**
   * How often a call of a {@code @LeaderOnly} method or leader-only task of {@code office} was
   * skipped.
   */
  public long officeSkips(String office) {
    return this.counts.office(office).skips();
  }

  /**
   * Waits until the {@code @LeaderOnly} methods and leader-only tasks of {@code office} ran at
   * least {@code times} times in all, counting runs that ended.
   */
  public void awaitOfficeRuns(String office, long times) {
    LeaderOnlyCounts.Counts.Count count = this.counts.office(office);
    await(() -> count.runs() >= times, "office " + office + " to have run " + times + " times");
  }

  /**
   * How often the {@code LeaderOnlyTasks} task named {@code task} ran (runs that ended).
   *
   * @throws IllegalArgumentException when no task was given that name so far (tasks are known once
   *     built, before they run); the message names those there are
   */
  public long taskRuns(String task) {
    return this.counts.task(task).runs();
  }

  /** How often a call of the {@code LeaderOnlyTasks} task named {@code task} was skipped. */
  public long taskSkips(String task) {
    return this.counts.task(task).skips();
  }

  /**
   * Waits until the {@code LeaderOnlyTasks} task named {@code task} ran at least {@code times}
   * times, counting runs that ended.
   */
  public void awaitTaskRuns(String task, long times) {
    LeaderOnlyCounts.Counts.Count count = this.counts.task(task);
    await(() -> count.runs() >= times, "task " + task + " to have run " + times + " times");
  }

  /**
   * The last run of {@code @Scheduled @LeaderOnly} method {@code method} of {@code type} that this
   * instance knows of (it claimed it, or read it when it last started leading); empty when none,
   * and always for a method without a misfire policy (its runs are not recorded).
   *
   * @throws IllegalArgumentException when {@code type} has no {@code @LeaderOnly} method so named
   */
  public Optional<JobRecord> lastRun(Class<?> type, String method) {
    this.counts.method(type, method);
    LeaderOnlyJobs jobs = this.jobs.get();
    if (jobs == null) {
      return Optional.empty();
    }
    String name = type.getName().replace('$', '.') + "." + method + "()";
    for (String office : this.elections.get().offices()) {
      for (JobRecord run : jobs.lastRuns(office)) {
        if (run.job().equals(name)) {
          return Optional.of(run);
        }
      }
    }
    return Optional.empty();
  }

  /**
   * Waits until the last run of {@code method} of {@code type} matches {@code condition}, e.g. a
   * missed firing run by the term {@link #grant} began: {@code run -> run.token() == term.token()},
   * or the end of a run the test started: {@link JobRecord#finished() JobRecord::finished}.
   */
  public JobRecord awaitLastRun(Class<?> type, String method, Predicate<JobRecord> condition) {
    await(
        () -> lastRun(type, method).filter(condition).isPresent(),
        "the last run of " + type.getSimpleName() + "." + method + "() to match");
    return lastRun(type, method).orElseThrow();
  }

  /** Where the test kit finds the jobs and their in-memory records; set by its configuration. */
  void jobs(
      Supplier<@Nullable LeaderOnlyJobs> jobs, Supplier<@Nullable InMemoryJobRecords> records) {
    this.jobs = jobs;
    this.records = records;
  }

  /** Closes the other candidates. */
  @Override
  public void destroy() {
    this.others.values().forEach(Election::close);
  }

  /**
   * Puts every office in the start state: this instance leads it (or follows {@link
   * #OTHER_CANDIDATE}), no other candidate is left, every count is zero.
   */
  void reset() {
    // First: a recovery after the grant below then finds no firing of the last test to run.
    InMemoryJobRecords known = this.records.get();
    if (known != null) {
      known.clear();
    }
    HealthGatedCandidacy candidacy = this.health.get();
    if (candidacy != null) {
      candidacy.reset();
    }
    for (Election election : this.elections.get().all()) {
      String office = election.office();
      if (election.state() == State.RESIGNED) {
        election.start();
      }
      if (this.leading) {
        grant(office);
        closeOthers(office, null);
      } else {
        electOther(office, OTHER_CANDIDATE);
        closeOthers(office, OTHER_CANDIDATE);
        awaitFollowing(office);
      }
    }
    this.ended.values().forEach(Set::clear);
    this.counts.clear();
  }

  /**
   * Before this instance campaigns: in the follower start state, {@link #OTHER_CANDIDATE} leads
   * every office first, so that this instance never leads it.
   */
  void electOthersFirst() {
    if (!this.leading) {
      for (String office : this.elections.get().offices()) {
        Election other =
            this.others.computeIfAbsent(
                office + "/" + OTHER_CANDIDATE,
                key ->
                    this.store.election(
                        ElectionOptions.builder(office).candidateId(OTHER_CANDIDATE).build()));
        other.start();
        await(other::isLeader, OTHER_CANDIDATE + " to lead office " + office);
      }
    }
  }

  /** Waits, once this instance campaigns, until every office is in the start state. */
  void awaitStartState() {
    for (String office : this.elections.get().offices()) {
      if (this.leading) {
        awaitLeading(office);
      } else {
        awaitFollowing(office);
      }
    }
  }

  private void closeOthers(String office, @Nullable String keep) {
    Iterator<Map.Entry<String, Election>> entries = this.others.entrySet().iterator();
    while (entries.hasNext()) {
      Map.Entry<String, Election> entry = entries.next();
      Election other = entry.getValue();
      if (other.office().equals(office) && !Objects.equals(other.candidate().id(), keep)) {
        other.close();
        entries.remove();
      }
    }
  }

  private Leadership end(String office, Runnable action) {
    Election election = election(office);
    watch(office, election);
    Leadership term = awaitLeading(office);
    action.run();
    awaitEnded(office, term.token());
    return term;
  }

  private void awaitEnded(String office, long token) {
    await(
        () -> this.ended.getOrDefault(office, Set.of()).contains(token),
        "the term with token " + token + " of office " + office + " to end");
  }

  /** Records the end of every term of {@code office}; the events follow the lose hooks. */
  private void watch(String office, Election election) {
    this.ended.computeIfAbsent(
        office,
        key -> {
          Set<Long> tokens = ConcurrentHashMap.newKeySet();
          election.addListener(
              event -> {
                if (event instanceof ElectionEvent.Lost lost) {
                  tokens.add(lost.token());
                } else if (event instanceof ElectionEvent.Resigned resigned) {
                  tokens.add(resigned.token());
                } else if (event instanceof ElectionEvent.Transferred transferred) {
                  tokens.add(transferred.token());
                }
              });
          return tokens;
        });
  }

  private void await(BooleanSupplier condition, String what) {
    Awaitility.await(what)
        .atMost(this.timeout)
        .pollInterval(Duration.ofMillis(10))
        .until(condition::getAsBoolean);
  }
}
