package dev.conch.spring.leaderonly;

/**
 * What a new leader of an office does with the firings of a {@code @Scheduled} {@link
 * LeaderOnly @LeaderOnly} job that came while the office was vacant, or held by a term that did not
 * run them: {@link LeaderOnly#misfire()}.
 */
public enum Misfire {

  /**
   * No misfire policy (the default): firings are not recorded, so nothing is known of the ones
   * missed; each firing runs on whoever leads at that moment, and none of this costs anything: no
   * record, no etcd key, no thread.
   */
  NONE,

  /**
   * Each firing is recorded; a new leader counts and logs the missed ones and runs none of them:
   * the job next runs at its next firing.
   */
  SKIP,

  /**
   * Runs the latest missed firing once, as soon as the new leader's acquire hooks ran, when it is
   * no older than {@link LeaderOnly#misfireThreshold()}; the earlier missed firings, and a latest
   * one that is older, are counted and logged as skipped.
   */
  RUN_ONCE
}
