package dev.conch.spring.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.docs.MeterDocumentation;
import org.jspecify.annotations.Nullable;

/**
 * The meters of conch and their tag keys ({@link ConchKeyNames}): those of {@link ConchMetrics}
 * (the balance's moves included), the fence's {@code conch.fence} counter, the {@code
 * conch.leaderonly} timer Boot's meter handler makes of the {@code @LeaderOnly} observation, and
 * the {@code conch.leaderonly.firings} counter of each scheduled leader-only job. The module
 * README's table of meters is checked against it; the alert rules in the repository's {@code
 * docs/prometheus} read {@code conch.leader}, {@code conch.transitions}, {@code
 * conch.office.leaderless} and {@code conch.office.failover.budget}.
 */
public enum ConchMeterDocumentation implements MeterDocumentation {

  /** Whether this instance leads the office; over the office's instances it sums to 1. */
  LEADER(
      "conch.leader",
      Meter.Type.GAUGE,
      "Whether this instance leads the office (1) or not (0). Summed over every instance of the"
          + " office it is 1: 0 while nobody leads (a fail-over), above 1 only while the scrapes"
          + " of an old and a new leader straddle a hand-over",
      ConchKeyNames.OFFICE),

  /** Changes of this instance's leadership: terms begun, and ended by how. */
  TRANSITIONS(
      "conch.transitions",
      Meter.Type.COUNTER,
      "Changes of this instance's leadership, counted from the leadership events"
          + " (`LeadershipAcquiredEvent`, `LeadershipLostEvent`): terms begun (`acquired`, at 0"
          + " from the office's first event on) and ended by how (`resigned`, `transferred`, or"
          + " `lost` with its reason)",
      ConchKeyNames.OFFICE,
      ConchKeyNames.KIND,
      ConchKeyNames.REASON),

  /** How long the office has been without a leader, as this instance last saw it. */
  LEADERLESS(
      "conch.office.leaderless",
      Meter.Type.GAUGE,
      "seconds",
      "Seconds the office has been without a leader as this instance last saw it, while it"
          + " campaigns or follows: from a `LeaderObservedEvent` with no leader, or from the end of"
          + " its own term (lost or transferred), to the next leader it sees or its own next term."
          + " 0 while someone leads, before this instance first saw the office without a leader,"
          + " and once it left the election (resigned, denied, closed)",
      ConchKeyNames.OFFICE),

  /** All the time this instance saw the office without a leader. */
  LEADERLESS_OBSERVED(
      "conch.office.leaderless.observed",
      Meter.Type.COUNTER,
      "seconds",
      "Seconds this instance saw the office without a leader in all (`conch.office.leaderless`"
          + " added up, the stretch in progress included). Every instance counts the same vacancy:"
          + " take the maximum over instances, not the sum",
      ConchKeyNames.OFFICE),

  /** The office's worst crash fail-over, from its timing budget. */
  FAILOVER_BUDGET(
      "conch.office.failover.budget",
      Meter.Type.GAUGE,
      "seconds",
      "Seconds the office may stay without a leader at most after its holder's process died while"
          + " etcd is healthy: `TimingBudget.crashFailover()`, the TTL plus etcd's expiry scan"
          + " (round trips come on top). Only for offices this instance campaigns for in etcd: none"
          + " in standalone mode, nor for the application's own `Election` beans",
      ConchKeyNames.OFFICE),

  /** Time from joining, or campaigning again, to leading. */
  CAMPAIGN(
      "conch.campaign",
      Meter.Type.TIMER,
      "Time from joining, or campaigning again after a loss or transfer, to leading (from the"
          + " first `CampaigningEvent` to the `LeadershipAcquiredEvent`)",
      ConchKeyNames.OFFICE),

  /** How long each term of this instance lasted. */
  TERM(
      "conch.term",
      Meter.Type.TIMER,
      "How long each term of this instance lasted, recorded when it ends (the term in progress is"
          + " `conch.leader`)",
      ConchKeyNames.OFFICE,
      ConchKeyNames.KIND,
      ConchKeyNames.REASON),

  /** Leader-only work a term's stop interrupted at its bound. */
  TERM_INTERRUPTED(
      "conch.term.interrupted",
      Meter.Type.COUNTER,
      "Leader-only work (`@LeaderOnly` calls, `LeaderOnlyTasks` tasks) still running when its"
          + " term's stop reached its bound (the stop timeout, or the safety margin before the"
          + " lease deadline), and interrupted: it may overlap the next leader's work",
      ConchKeyNames.OFFICE,
      ConchKeyNames.WORK),

  /** Election events dropped because listeners fell behind. */
  EVENTS_DROPPED(
      "conch.events.dropped",
      Meter.Type.COUNTER,
      "Election events dropped because listeners fell behind (`Election.droppedEvents()`)",
      ConchKeyNames.OFFICE),

  /** Failed renewals of the one lease every office shares. */
  RENEWAL_FAILURES(
      "conch.renewal.failures",
      Meter.Type.COUNTER,
      "Failed renewals of the lease shared by every office (`EtcdSession.renewalFailures()`); no"
          + " `conch.office` tag, or each failure would count once per office"),

  /** Offices this instance handed to another member of its group. */
  BALANCE_MOVES(
      "conch.balance.moves",
      Meter.Type.COUNTER,
      "Offices this instance handed to another member of its group (`conch.balance.*`), one per"
          + " `OfficeMovedEvent`; no `conch.office` tag: which office moved is in the event and the"
          + " log",
      ConchKeyNames.GROUP,
      ConchKeyNames.MOVE_REASON),

  /** Fenced transactions. */
  FENCE(
      "conch.fence",
      Meter.Type.COUNTER,
      "Fenced transactions: committed after the fence passed, or refused as stale",
      ConchKeyNames.OFFICE,
      ConchKeyNames.FENCE_OUTCOME),

  /** Calls of {@code @LeaderOnly} methods: the timer of their observation. */
  LEADER_ONLY(
      "conch.leaderonly",
      Meter.Type.TIMER,
      "Calls of `@LeaderOnly` methods and `LeaderOnlyTasks` tasks, run or skipped: the timer"
          + " Boot's meter handler (`DefaultMeterObservationHandler`) makes of the"
          + " `conch.leaderonly` observation, with its low-cardinality keys (and the handler's"
          + " `error`)",
      ConchObservationDocumentation.LEADER_ONLY.getLowCardinalityKeyNames()),

  /** What became of each firing of a recorded {@code @Scheduled @LeaderOnly} job. */
  LEADER_ONLY_FIRINGS(
      "conch.leaderonly.firings",
      Meter.Type.COUNTER,
      "Firings of `@Scheduled @LeaderOnly` jobs by what became of them (no observation counts a"
          + " missed firing); on the instance that ran, skipped or recovered them",
      ConchKeyNames.OFFICE,
      ConchKeyNames.JOB,
      ConchKeyNames.FIRING_OUTCOME);

  private final String name;

  private final Meter.Type type;

  private final @Nullable String baseUnit;

  private final String description;

  private final KeyName[] keyNames;

  ConchMeterDocumentation(String name, Meter.Type type, String description, KeyName... keyNames) {
    this(name, type, null, description, keyNames);
  }

  ConchMeterDocumentation(
      String name,
      Meter.Type type,
      @Nullable String baseUnit,
      String description,
      KeyName... keyNames) {
    this.name = name;
    this.type = type;
    this.baseUnit = baseUnit;
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

  /**
   * The unit of the meter's values, which Prometheus adds to its name ({@code
   * conch_office_leaderless_seconds}); {@code null} for the meters without one and the timers
   * (whose unit is the registry's).
   */
  @Override
  public @Nullable String getBaseUnit() {
    return this.baseUnit;
  }

  @Override
  public KeyName[] getKeyNames() {
    return this.keyNames.clone();
  }

  /** What the meter measures, as the README says it. */
  public String getDescription() {
    return this.description;
  }
}
