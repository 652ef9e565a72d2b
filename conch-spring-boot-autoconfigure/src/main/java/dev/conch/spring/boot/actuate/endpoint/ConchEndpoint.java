package dev.conch.spring.boot.actuate.endpoint;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonInclude.Include;
import dev.conch.Election;
import dev.conch.EtcdUnavailableException;
import dev.conch.Holder;
import dev.conch.Leadership;
import dev.conch.NotLeaderException;
import dev.conch.OfficeGroup;
import dev.conch.Setting;
import dev.conch.State;
import dev.conch.TermRecord;
import dev.conch.TransferRefusedException;
import dev.conch.etcd.TimingBudget;
import dev.conch.spring.Elections;
import dev.conch.spring.LeaderObservedEvent;
import dev.conch.spring.health.CandidacyPauses;
import dev.conch.spring.leaderonly.JobRecord;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.ImportRuntimeHints;

/**
 * {@link Endpoint @Endpoint} {@code conch}: this instance and the offices it takes part in, who
 * leads any office (read from etcd), and whether this instance holds an office right now.
 *
 * <p>Over the web, {@link ConchEndpointWebExtension} adds the status codes scripts and load
 * balancers rely on; the operations here serve JMX, where the assertion is {@code assertion(office,
 * "assert", minRev)}.
 *
 * <p>Access is {@link Access#READ_ONLY read-only} by default: the write operation ({@code resign},
 * {@code transfer}, {@code transfer} to a named candidate) is mapped only with {@code
 * management.endpoint.conch.access=unrestricted} (or {@code
 * management.endpoints.access.default=unrestricted}), and never above {@code
 * management.endpoints.access.max-permitted}.
 *
 * <p>Every descriptor is an {@link OperationResponseBody}: the actuator's own JSON mapper writes
 * it, whatever the application does to its own.
 *
 * <p>Why one file of over 400 lines: more than half of it is the descriptors, nested here as in
 * Boot's own endpoints ({@code ScheduledTasksEndpoint.ScheduledTasksDescriptor}), so that the
 * endpoint's whole JSON contract reads in one place beside the operations that answer with it.
 */
@Endpoint(id = "conch", defaultAccess = Access.READ_ONLY)
@ImportRuntimeHints(ConchEndpointRuntimeHints.class)
public class ConchEndpoint implements ApplicationListener<LeaderObservedEvent> {

  /** The word after the office that asserts: {@code /actuator/conch/{office}/assert}. */
  public static final String ASSERT = "assert";

  /** The word after the office that reads its history: {@code /actuator/conch/{office}/history}. */
  public static final String HISTORY = "history";

  /** What the office's history says ended a term this endpoint resigned or transferred. */
  static final String ASKED = "an operator asked, through the conch endpoint";

  /** How many terms a history read answers without {@code n}. */
  public static final int DEFAULT_TERMS = 10;

  private final Elections elections;

  private final Function<String, Optional<Holder>> leaders;

  private final Function<String, Optional<TimingBudget>> timings;

  private final Function<String, List<JobRecord>> jobs;

  private final Supplier<Optional<OfficeGroup>> group;

  private final Map<String, Optional<Holder>> observed = new ConcurrentHashMap<>();

  private final Function<String, Optional<CandidacyPauses.Pause>> pauses;

  private final BiFunction<String, Integer, List<TermRecord>> histories;

  /**
   * An endpoint over {@code elections}, their leader-only jobs, the health their candidacy
   * requires, and the group that shares their offices.
   *
   * @param elections the offices this instance campaigns for
   * @param leaders reads who leads any office from the store, not a cache; empty when vacant; may
   *     throw {@link EtcdUnavailableException}
   * @param timings the timing budget of an office, when known
   * @param jobs the last run of each {@code @Scheduled @LeaderOnly} job of an office that this
   *     instance knows of, without a store read
   * @param pauses why an office's candidacy is paused by the health it requires, while it is
   * @param group the group this instance is a member of now, if any ({@code conch.balance.*})
   * @param histories reads the last n terms of any office from the store, oldest first; may throw
   *     {@link EtcdUnavailableException}
   */
  public ConchEndpoint(
      Elections elections,
      Function<String, Optional<Holder>> leaders,
      Function<String, Optional<TimingBudget>> timings,
      Function<String, List<JobRecord>> jobs,
      Function<String, Optional<CandidacyPauses.Pause>> pauses,
      Supplier<Optional<OfficeGroup>> group,
      BiFunction<String, Integer, List<TermRecord>> histories) {
    this.elections = elections;
    this.leaders = leaders;
    this.timings = timings;
    this.jobs = jobs;
    this.pauses = pauses;
    this.group = group;
    this.histories = histories;
  }

  /** Remembers who each office's candidate last saw leading, for {@link #conch()}. */
  @Override
  public void onApplicationEvent(LeaderObservedEvent event) {
    this.observed.put(event.getOffice(), event.getLeader());
  }

  /**
   * This instance, every office it takes part in, and the group that shares them. The leader is
   * this instance while it leads, else the leader this instance last observed (no etcd read: it
   * answers while etcd is down); the group's members are those it last saw.
   */
  @ReadOperation
  public ConchDescriptor conch() {
    List<Election> all = this.elections.all();
    Holder self = all.isEmpty() ? Holder.self("conch", null, null) : all.get(0).candidate();
    List<OfficeDescriptor> offices = all.stream().map(this::describe).toList();
    return new ConchDescriptor(
        // This instance's own candidate: conch wrote it, so it has an id and a host.
        new CandidateDescriptor(
            Objects.requireNonNull(self.id()), Objects.requireNonNull(self.host()), self.pid()),
        offices,
        this.group.get().map(GroupDescriptor::of).orElse(null));
  }

  /**
   * Who leads {@code office} now, read from the store.
   *
   * @return the leader, or {@code null} when the office is vacant
   * @throws dev.conch.InvalidArgumentException when {@code office} is no office name
   * @throws EtcdUnavailableException when etcd cannot be read in time
   */
  @ReadOperation
  public @Nullable HolderDescriptor leader(@Selector String office) {
    return this.leaders
        .apply(Setting.OFFICE.require(office))
        .map(HolderDescriptor::of)
        .orElse(null);
  }

  /**
   * {@code /actuator/conch/{office}/assert}: {@link #assertion}; {@code
   * /actuator/conch/{office}/history}: {@link #history}.
   *
   * @param view {@value #ASSERT} or {@value #HISTORY}
   * @param minRev with {@value #ASSERT} only
   * @param n with {@value #HISTORY} only
   * @throws IllegalArgumentException for another view, or a parameter of the other view
   */
  @ReadOperation
  public OperationResponseBody office(
      @Selector String office, @Selector String view, @Nullable Long minRev, @Nullable Integer n) {
    if (HISTORY.equals(view)) {
      if (minRev != null) {
        throw new IllegalArgumentException("'minRev' goes with '" + ASSERT + "' only");
      }
      return history(office, n);
    }
    if (n != null) {
      throw new IllegalArgumentException("'n' goes with '" + HISTORY + "' only");
    }
    return assertion(office, view, minRev);
  }

  /**
   * The last {@code n} terms of {@code office} (10 when not given), oldest first, read from the
   * store: who led, with which token, from when, and when and how each term ended.
   *
   * @throws dev.conch.InvalidArgumentException when {@code office} is no office name
   * @throws IllegalArgumentException when {@code n} is not 1 to {@value Setting#MAX_HISTORY_TERMS}
   * @throws NoSuchElementException when the office has no recorded term
   * @throws EtcdUnavailableException when etcd cannot be read in time
   */
  public HistoryDescriptor history(String office, @Nullable Integer n) {
    Setting.OFFICE.require(office);
    int terms = (n != null) ? n : DEFAULT_TERMS;
    if (terms < 1 || terms > Setting.MAX_HISTORY_TERMS) {
      throw new IllegalArgumentException(
          "invalid n '" + n + "': a number of terms from 1 to " + Setting.MAX_HISTORY_TERMS);
    }
    List<TermRecord> recorded = this.histories.apply(office, terms);
    if (recorded.isEmpty()) {
      throw new NoSuchElementException(
          "office '" + office + "' has no recorded term (never led, or no history kept)");
    }
    return new HistoryDescriptor(office, recorded.stream().map(TermDescriptor::of).toList());
  }

  /**
   * Whether this instance holds {@code office} right now: its candidate leads, and the leader read
   * from the store has this candidate's token as its create revision, at least {@code minRev}.
   *
   * @param check must be {@value #ASSERT}
   * @throws IllegalArgumentException when {@code check} is not {@value #ASSERT}
   * @throws EtcdUnavailableException when etcd cannot be read in time (fail closed)
   */
  public AssertionDescriptor assertion(
      @Selector String office, @Selector String check, @Nullable Long minRev) {
    if (!ASSERT.equals(check)) {
      throw new IllegalArgumentException(
          "'" + check + "': only '" + ASSERT + "' and '" + HISTORY + "' are known");
    }
    Setting.OFFICE.require(office);
    Optional<Election> mine = this.elections.find(office);
    OptionalLong token = mine.map(Election::token).orElse(OptionalLong.empty());
    Optional<Holder> leader = this.leaders.apply(office);
    boolean held =
        token.isPresent()
            && leader.isPresent()
            && leader.get().rev() == token.getAsLong()
            // Still the same term after the read: nothing was lost while etcd answered.
            && mine.get().isLeader()
            && mine.get().token().equals(token)
            && (minRev == null || token.getAsLong() >= minRev);
    return new AssertionDescriptor(
        held,
        leader.map(Holder::rev).orElse(null),
        leader.map(Holder::host).orElse(null),
        leader.map(Holder::id).orElse(null),
        null);
  }

  /**
   * Resigns from or transfers {@code office}. {@code resign} leaves the election: the next
   * candidate leads at once, and this instance does not campaign again until it restarts. {@code
   * transfer} hands the office over and queues again at the back: to the candidate {@code to} when
   * given ({@link Election#transfer(String)}), else to the next in line.
   *
   * @param action {@code resign} or {@code transfer} (any case); the actuator answers any other
   *     value with 400 before this is called
   * @param to the candidate id to hand the office to, with {@code transfer} only
   * @throws NoSuchElementException when this instance does not campaign for {@code office}
   * @throws IllegalArgumentException for a blank {@code to}, or {@code to} with {@code resign}
   * @throws NotLeaderException on {@code transfer} while not leading
   * @throws TransferRefusedException when the hand-over to {@code to} was refused: nothing changed
   * @throws UnsupportedOperationException when the office's election cannot do it (the runner's)
   */
  @WriteOperation
  public ActionDescriptor act(@Selector String office, Action action, @Nullable String to) {
    Election election =
        this.elections
            .find(office)
            .orElseThrow(
                () ->
                    new NoSuchElementException(
                        "this instance does not campaign for office '" + office + "'"));
    if (to != null && action != Action.TRANSFER) {
      throw new IllegalArgumentException(
          "'to' goes with the action 'transfer' only, not '" + action.word() + "'");
    }
    if (to != null && to.isBlank()) {
      throw new IllegalArgumentException(
          "'to' is blank; give the candidate id of a live candidate of office '"
              + office
              + "' (as the overview's group members or GET /actuator/conch/"
              + office
              + " show it), or leave 'to' out to hand over to the next in line");
    }
    switch (action) {
      case RESIGN -> election.resign(ASKED);
      case TRANSFER -> {
        if (to != null) {
          election.transfer(to, ASKED);
        } else {
          election.transfer();
        }
      }
    }
    return new ActionDescriptor(office, action.word(), to, election.state());
  }

  private OfficeDescriptor describe(Election election) {
    OptionalLong token = election.token();
    Optional<Holder> leader =
        election
            .leadership()
            .map(Leadership::holder)
            .or(() -> this.observed.getOrDefault(election.office(), Optional.empty()));
    return new OfficeDescriptor(
        election.office(),
        election.state(),
        leader.map(HolderDescriptor::of).orElse(null),
        token.isPresent() ? token.getAsLong() : null,
        this.timings.apply(election.office()).map(TimingDescriptor::of).orElse(null),
        this.pauses.apply(election.office()).map(CandidacyDescriptor::of).orElse(null),
        this.jobs.apply(election.office()).stream().map(JobDescriptor::of).toList());
  }

  /**
   * This instance and its offices.
   *
   * @param candidate who this instance is in every office
   * @param offices the offices it takes part in
   * @param group the group that shares them, or {@code null} when there is none (standalone, {@code
   *     conch.balance.enabled=false}, before start and after stop)
   */
  @JsonInclude(Include.ALWAYS)
  public record ConchDescriptor(
      CandidateDescriptor candidate,
      List<OfficeDescriptor> offices,
      @Nullable GroupDescriptor group)
      implements OperationResponseBody {}

  /**
   * The group that shares this instance's offices.
   *
   * @param name the group's name
   * @param members its live members as this instance last saw them, in id order
   */
  public record GroupDescriptor(String name, List<MemberDescriptor> members)
      implements OperationResponseBody {

    static GroupDescriptor of(OfficeGroup group) {
      return new GroupDescriptor(
          group.name(),
          group.members().stream()
              .map(
                  m ->
                      new MemberDescriptor(
                          m.id(), m.priority(), m.leads(), m.self(), m.receiving()))
              .toList());
    }
  }

  /**
   * A live member of the group.
   *
   * @param id its candidate id
   * @param priority its priority ({@code conch.candidate.priority}): higher leads first
   * @param leads how many of the group's offices it leads
   * @param self whether it is this instance
   * @param receiving whether it stands in the line of some office of the group (not health-paused,
   *     not backing off), so that the others may hand it offices
   */
  public record MemberDescriptor(
      String id, int priority, int leads, boolean self, boolean receiving)
      implements OperationResponseBody {}

  /**
   * Who this instance is.
   *
   * @param id the candidate id, unique per instance
   * @param host the host name
   * @param pid the process id
   */
  public record CandidateDescriptor(String id, String host, long pid)
      implements OperationResponseBody {}

  /**
   * One office this instance takes part in.
   *
   * @param office the office
   * @param state the state of this instance's candidate
   * @param leader who leads, or {@code null} when unknown or vacant
   * @param token this instance's fencing token while it leads, else {@code null}
   * @param timing what its settings promise in time, or {@code null} when unknown (standalone, the
   *     application's own elections)
   * @param candidacy why this instance does not campaign for the office now, or {@code null} when
   *     its required health does not keep it out
   * @param jobs the last run of each of its {@code @Scheduled @LeaderOnly} jobs that this instance
   *     knows of (it ran it, or read it when it last started leading); empty when none
   */
  @JsonInclude(Include.ALWAYS)
  public record OfficeDescriptor(
      String office,
      State state,
      @Nullable HolderDescriptor leader,
      @Nullable Long token,
      @Nullable TimingDescriptor timing,
      @Nullable CandidacyDescriptor candidacy,
      List<JobDescriptor> jobs)
      implements OperationResponseBody {}

  /**
   * A candidacy paused by the health it requires ({@code conch.offices.<name>.require-health}).
   *
   * @param paused always {@code true}
   * @param indicator the required contributor or group that is not UP
   * @param reason what is wrong, e.g. {@code db is DOWN}
   * @param until the end of the quarantine (RFC 3339 UTC) of a leader that resigned, before which
   *     it does not campaign even when UP again; {@code null}: while the indicator is not UP
   */
  @JsonInclude(Include.ALWAYS)
  public record CandidacyDescriptor(
      boolean paused, String indicator, String reason, @Nullable String until)
      implements OperationResponseBody {

    static CandidacyDescriptor of(CandidacyPauses.Pause pause) {
      Instant until = pause.until();
      return new CandidacyDescriptor(
          true, pause.indicator(), pause.reason(), (until != null) ? until.toString() : null);
    }
  }

  /**
   * The last run of a leader-only job, as its record in the office says.
   *
   * @param job the job, as {@code package.Class.method()}
   * @param token the fencing token of the term that claimed the firing
   * @param holder the candidate id of that term's holder
   * @param scheduled the firing it ran (RFC 3339 UTC)
   * @param started when it started
   * @param ended when it ended, or {@code null} while it runs
   * @param outcome {@code running}, {@code done}, {@code failed} or {@code interrupted}
   */
  @JsonInclude(Include.ALWAYS)
  public record JobDescriptor(
      String job,
      long token,
      String holder,
      String scheduled,
      String started,
      @Nullable String ended,
      String outcome)
      implements OperationResponseBody {

    static JobDescriptor of(JobRecord record) {
      return new JobDescriptor(
          record.job(),
          record.token(),
          record.holder(),
          record.scheduled().toString(),
          record.started().toString(),
          (record.ended() != null) ? record.ended().toString() : null,
          record.outcome().name().toLowerCase(java.util.Locale.ROOT));
    }
  }

  /**
   * A holder of an office: the holder JSON of its key, plus its create revision ({@code rev}, the
   * fencing token) and lease (hex). A key written by another tool (an {@code etcdctl elect}
   * proposal) has only {@code office}, {@code rev}, {@code lease} and its raw {@code value}.
   *
   * @param office the office
   * @param host the holder's host name
   * @param pid the holder's process id, 0 when unknown
   * @param since when it won, RFC 3339 UTC
   * @param id the holder's candidate id
   * @param rev the create revision of its key: the fencing token
   * @param lease the lease of its key, lowercase hex
   * @param value the raw value of a key conch did not write, else absent
   */
  @JsonInclude(Include.ALWAYS)
  public record HolderDescriptor(
      String office,
      @Nullable String host,
      long pid,
      @Nullable String since,
      @Nullable String id,
      long rev,
      String lease,
      @JsonInclude(Include.NON_NULL) @Nullable String value)
      implements OperationResponseBody {

    static HolderDescriptor of(Holder holder) {
      return new HolderDescriptor(
          holder.office(),
          holder.host(),
          holder.pid(),
          (holder.since() != null) ? holder.since().toString() : null,
          holder.id(),
          holder.rev(),
          holder.leaseHex(),
          holder.raw());
    }
  }

  /**
   * The answer to {@code /actuator/conch/{office}/assert}.
   *
   * @param held whether this instance holds the office right now, confirmed against etcd
   * @param rev the create revision of the leader's key, or {@code null} when vacant or unknown
   * @param host the leader's host, or {@code null}
   * @param id the leader's candidate id ({@code conch.candidate.id}, by default {@code
   *     <host>:<pid>}), or {@code null}: what tells two instances on one host apart
   * @param error why the question could not be answered, else absent
   */
  @JsonInclude(Include.ALWAYS)
  public record AssertionDescriptor(
      boolean held,
      @Nullable Long rev,
      @Nullable String host,
      @Nullable String id,
      @JsonInclude(Include.NON_NULL) @Nullable String error)
      implements OperationResponseBody {}

  /**
   * The answer to {@code /actuator/conch/{office}/history}.
   *
   * @param office the office
   * @param terms its last terms, oldest first
   */
  public record HistoryDescriptor(String office, List<TermDescriptor> terms)
      implements OperationResponseBody {}

  /**
   * One term of an office's history.
   *
   * @param token the term's fencing token
   * @param id the holder's candidate id
   * @param host the holder's host
   * @param pid the holder's process id
   * @param lease the holder's lease, hex
   * @param began when the term began (RFC 3339)
   * @param ended when it ended, or {@code null} while it lasts (or when no end is recorded)
   * @param reason how it ended ({@code resigned}, {@code transferred}, {@code closed}, {@code
   *     acquire-failed}, {@code renewal-failed}, {@code lease-expired}, {@code key-deleted}), or
   *     {@code null} while it lasts
   * @param detail what ended it, in words (who asked, to whom, which error), or {@code null}
   * @param recordedBy who wrote the end: the holder, or its successor for a term that ended without
   *     a word
   * @param vacantBeforeMs how long the office had no leader before this term, or {@code null} when
   *     unknown
   */
  @JsonInclude(Include.ALWAYS)
  public record TermDescriptor(
      long token,
      @Nullable String id,
      @Nullable String host,
      long pid,
      String lease,
      @Nullable String began,
      @Nullable String ended,
      @Nullable String reason,
      @Nullable String detail,
      @Nullable String recordedBy,
      @Nullable Long vacantBeforeMs) {

    static TermDescriptor of(TermRecord term) {
      Holder holder = term.holder();
      return new TermDescriptor(
          term.token(),
          holder.id(),
          holder.host(),
          holder.pid(),
          holder.leaseHex(),
          (holder.since() != null) ? holder.since().toString() : null,
          (term.ended() != null) ? term.ended().toString() : null,
          (term.reason() != null) ? TermRecord.reasonCode(term.reason()) : null,
          term.detail(),
          term.recordedBy(),
          (term.vacantBefore() != null) ? term.vacantBefore().toMillis() : null);
    }
  }

  /**
   * What was done to an office.
   *
   * @param office the office
   * @param action {@code resign} or {@code transfer} (any case); the actuator answers any other
   *     value with 400 before this is called
   * @param to the candidate id the office was handed to, or {@code null} (resign, or a transfer to
   *     the next in line)
   * @param state the state of this instance's candidate afterwards
   */
  @JsonInclude(Include.ALWAYS)
  public record ActionDescriptor(String office, String action, @Nullable String to, State state)
      implements OperationResponseBody {}

  /** What the write operation does to an office. */
  public enum Action {
    /** Leave the election: the next candidate leads, this instance campaigns no more. */
    RESIGN,
    /** Hand the office over (to a named candidate, or the next in line) and queue again. */
    TRANSFER;

    /** How requests and responses spell it: {@code resign}, {@code transfer}. */
    public String word() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }
}
