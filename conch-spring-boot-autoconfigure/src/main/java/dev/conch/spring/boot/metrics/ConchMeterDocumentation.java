package dev.conch.spring.boot.metrics;

import dev.conch.spring.observation.LeaderOnlyObservationDocumentation;
import io.micrometer.common.docs.KeyName;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.docs.MeterDocumentation;

/**
 * The meters of conch and their tag keys: those of {@link ConchMetrics} (the balance's moves
 * included), the fence's {@code conch.fence} counter, the {@code conch.leaderonly} timer the
 * starter records itself when the application has no {@code ObservationRegistry}, and the {@code
 * conch.leaderonly.firings} counter of each scheduled leader-only job. The module README's table of
 * meters is checked against it.
 */
public enum ConchMeterDocumentation implements MeterDocumentation {

  /** Whether this instance leads the office. */
  LEADER(
      "conch.leader",
      Meter.Type.GAUGE,
      "Whether this instance leads the office (1) or not (0)",
      KeyNames.OFFICE),

  /** Changes of this instance's leadership. */
  TRANSITIONS(
      "conch.transitions",
      Meter.Type.COUNTER,
      "Changes of this instance's leadership, counted from the published election events",
      KeyNames.OFFICE,
      KeyNames.KIND,
      KeyNames.REASON),

  /** Time from joining, or campaigning again, to leading. */
  CAMPAIGN(
      "conch.campaign",
      Meter.Type.TIMER,
      "Time from joining, or campaigning again after a loss or transfer, to leading",
      KeyNames.OFFICE),

  /** How long each term of this instance lasted. */
  TERM(
      "conch.term",
      Meter.Type.TIMER,
      "How long each term of this instance lasted, recorded when it ends (the term in progress is"
          + " `conch.leader`)",
      KeyNames.OFFICE,
      KeyNames.KIND,
      KeyNames.REASON),

  /** Leader-only work a term's stop interrupted at its bound. */
  TERM_INTERRUPTED(
      "conch.term.interrupted",
      Meter.Type.COUNTER,
      "Leader-only work (`@LeaderOnly` calls, `LeaderOnlyTasks` tasks) still running when its"
          + " term's stop reached its bound (the stop timeout, or the safety margin before the"
          + " lease deadline), and interrupted: it may overlap the next leader's work",
      KeyNames.OFFICE,
      KeyNames.WORK),

  /** Election events dropped because listeners fell behind. */
  EVENTS_DROPPED(
      "conch.events.dropped",
      Meter.Type.COUNTER,
      "Election events dropped because listeners fell behind (`Election.droppedEvents()`)",
      KeyNames.OFFICE),

  /** Failed renewals of the one lease every office shares. */
  RENEWAL_FAILURES(
      "conch.renewal.failures",
      Meter.Type.COUNTER,
      "Failed renewals of the lease shared by every office (`EtcdSession.renewalFailures()`); no"
          + " `office` tag, or each failure would count once per office"),

  /** Offices this instance handed to another member of its group. */
  BALANCE_MOVES(
      "conch.balance.moves",
      Meter.Type.COUNTER,
      "Offices this instance handed to another member of its group (`conch.balance.*`), one per"
          + " `OfficeMovedEvent`; no `office` tag: which office moved is in the event and the log",
      KeyNames.GROUP,
      KeyNames.MOVE_REASON),

  /** Fenced transactions. */
  FENCE(
      "conch.fence",
      Meter.Type.COUNTER,
      "Fenced transactions: committed after the fence passed, or refused as stale",
      KeyNames.OFFICE,
      KeyNames.FENCE_OUTCOME),

  /** Calls of {@code @LeaderOnly} methods, without an {@code ObservationRegistry}. */
  LEADER_ONLY(
      "conch.leaderonly",
      Meter.Type.TIMER,
      "Calls of `@LeaderOnly` methods and `LeaderOnlyTasks` tasks, run or skipped, when there is"
          + " no `ObservationRegistry`:"
          + " the timer a meter handler makes of the `conch.leaderonly` observation, with its"
          + " low-cardinality keys",
      LeaderOnlyObservationDocumentation.LowCardinalityKeyNames.values()),

  /** What became of each firing of a {@code @Scheduled @LeaderOnly} job with a misfire policy. */
  LEADER_ONLY_FIRINGS(
      "conch.leaderonly.firings",
      Meter.Type.COUNTER,
      "Firings of `@Scheduled @LeaderOnly` jobs with a misfire policy by what became of them,"
          + " with or without an"
          + " `ObservationRegistry`; on the instance that ran, skipped or recovered them",
      KeyNames.OFFICE,
      KeyNames.JOB,
      KeyNames.FIRING_OUTCOME);

  private final String name;

  private final Meter.Type type;

  private final String description;

  private final KeyName[] keyNames;

  ConchMeterDocumentation(String name, Meter.Type type, String description, KeyName... keyNames) {
    this.name = name;
    this.type = type;
    this.description = description;
    this.keyNames = keyNames;
  }

  @Override
  public String getName() {
    return this.name;
  }

  @Override
  public Meter.Type getType() {
    return this.type;
  }

  @Override
  public KeyName[] getKeyNames() {
    return this.keyNames.clone();
  }

  /** What the meter measures, as the README says it. */
  public String getDescription() {
    return this.description;
  }

  /** Tag keys of the meters of conch. */
  public enum KeyNames implements KeyName {

    /** The office. */
    OFFICE("office", "The office"),

    /** The transition, or how a term ended. */
    KIND(
        "kind",
        "The transition: `acquired`, `lost`, `resigned`, `transferred` (a term ends with one of"
            + " the last three)"),

    /** Why the term was lost. */
    REASON(
        "reason",
        "For `lost`, the `LossReason` in lower case (`renewal_failed`, `lease_expired`,"
            + " `key_deleted`, `acquire_failed`); else `none`"),

    /** The group an office moved in. */
    GROUP("group", "The group's name (`conch.balance.group`)"),

    /** Why an office moved. */
    MOVE_REASON(
        "reason",
        "`share` (this instance led more than its fair share) or `priority` (a member of higher"
            + " priority is live)"),

    /** Whether a fenced transaction passed the fence. */
    FENCE_OUTCOME(
        "outcome",
        "`passed` (committed after the fence passed) or `stale` (the fence refused a stale"
            + " token; the transaction rolled back)"),

    /** The job. */
    JOB("job", "The job's method, as `Class.method()`"),

    /** Leader-only work, by name. */
    WORK(
        "work",
        "The interrupted work: a `@LeaderOnly` method as `Class.method()`, or a"
            + " `LeaderOnlyTasks` task's name"),

    /** What became of a firing. */
    FIRING_OUTCOME(
        "outcome",
        "`run` (ran in its term), `skipped` (not run here: not leading, or its claim was"
            + " refused), `misfire_recovered` (missed, run once by the new leader),"
            + " `misfire_skipped` (missed and not run: `SKIP`, older than the threshold, or"
            + " earlier than the one run), `unknown` (a run whose holder never said how it ended,"
            + " found by the next leader; not run again)");

    private final String name;

    private final String description;

    KeyNames(String name, String description) {
      this.name = name;
      this.description = description;
    }

    @Override
    public String asString() {
      return this.name;
    }

    /** What the tag's value says, as the README says it. */
    public String getDescription() {
      return this.description;
    }
  }
}
