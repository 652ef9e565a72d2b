package dev.conch.spring.observation;

import io.micrometer.common.docs.KeyName;

/**
 * Every tag key of conch's observations and meters, with what its value says: one list for {@link
 * ConchObservationDocumentation} and the meters' {@code ConchMeterDocumentation}, so that one key
 * reads the same wherever it is. conch's own keys start with {@code conch.}, as Spring's libraries
 * namespace theirs ({@code spring.kafka.listener.id}); the keys a {@code @LeaderOnly} call shares
 * with Spring's {@code @Scheduled} observation ({@code code.namespace}, {@code code.function},
 * {@code outcome}, {@code exception}) are Spring's. Two constants share a key where its values
 * differ by meter ({@code conch.reason}, {@code conch.outcome}).
 */
public enum ConchKeyNames implements KeyName {

  /** The office. */
  OFFICE("conch.office", "The office"),

  /** The fencing token of the term a call ran in. */
  TOKEN(
      "conch.token",
      "The fencing token of the term the call ran in; `none` for a `@LeaderOnly` call skipped"),

  /** The hook, as {@code bean.method()}. */
  HOOK("conch.hook", "The hook, as `bean.method()`"),

  /** The transition a hook runs on. */
  TRANSITION("conch.transition", "The transition the hook runs on: `acquired` or `lost`"),

  /** Why the term of a hook ended. */
  HOOK_REASON(
      "conch.reason",
      "Why the term ended, on `lost`: the `LossReason` in lower case (`resigned`,"
          + " `key_deleted`, `lease_expired`, `renewal_failed`, `acquire_failed`, ...);"
          + " `none` on `acquired`"),

  /** The transition, or how a term ended. */
  KIND(
      "conch.kind",
      "The transition: `acquired`, `lost`, `resigned`, `transferred` (a term ends with one of"
          + " the last three)"),

  /** Why the term was lost. */
  REASON(
      "conch.reason",
      "For `lost`, the `LossReason` in lower case (`renewal_failed`, `lease_expired`,"
          + " `key_deleted`, `acquire_failed`); else `none`"),

  /** The group an office moved in. */
  GROUP("conch.group", "The group's name (`conch.balance.group`)"),

  /** Why an office moved. */
  MOVE_REASON(
      "conch.reason",
      "`share` (this instance led more than its fair share) or `priority` (a member of higher"
          + " priority is live)"),

  /** Whether a fenced transaction passed the fence. */
  FENCE_OUTCOME(
      "conch.outcome",
      "`passed` (committed after the fence passed) or `stale` (the fence refused a stale"
          + " token; the transaction rolled back)"),

  /** The job. */
  JOB("conch.job", "The job's method, as `Class.method()`"),

  /** Leader-only work, by name. */
  WORK(
      "conch.work",
      "The interrupted work: a `@LeaderOnly` method as `Class.method()`, or a"
          + " `LeaderOnlyTasks` task's name"),

  /** What became of a firing. */
  FIRING_OUTCOME(
      "conch.outcome",
      "`run` (ran in its term), `skipped` (not run here: not leading, or its claim was"
          + " refused), `misfire_recovered` (missed, run once by the new leader),"
          + " `misfire_skipped` (missed and not run: `SKIP`, older than the threshold, or"
          + " earlier than the one run), `unknown` (a run whose holder never said how it ended,"
          + " found by the next leader; not run again)"),

  /** The canonical name of the class that declares a {@code @LeaderOnly} method (Spring's key). */
  CODE_NAMESPACE(
      "code.namespace",
      "The canonical name of the method's class (`ANONYMOUS` for a class that has none; `none`"
          + " for a task)"),

  /** The name of a {@code @LeaderOnly} method, or of a task (Spring's key). */
  CODE_FUNCTION("code.function", "The name of the method, or the task's name"),

  /** {@code SUCCESS}, {@code ERROR} or {@code SKIPPED} (Spring's key). */
  OUTCOME(
      "outcome",
      "`SUCCESS` (ran and returned), `ERROR` (ran and threw) or `SKIPPED` (not run: this"
          + " instance does not lead the office)"),

  /** The simple name of the exception a call threw, or {@code none} (Spring's key). */
  EXCEPTION("exception", "The simple name of the exception the method threw, else `none`");

  private final String name;

  private final String description;

  ConchKeyNames(String name, String description) {
    this.name = name;
    this.description = description;
  }

  @Override
  public String asString() {
    return this.name;
  }

  /** What the key's value says, as the README says it. */
  public String getDescription() {
    return this.description;
  }
}
