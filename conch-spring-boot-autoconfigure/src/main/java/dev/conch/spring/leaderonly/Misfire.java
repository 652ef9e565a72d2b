package dev.conch.spring.leaderonly;

/**
 * What a new leader of an office does with the firings of a {@code @Scheduled} {@link
 * LeaderOnly @LeaderOnly} job that came while the office was vacant, or held by a term that did not
 * run them: {@link LeaderOnly#misfire()}.
 */
public enum Misfire {

  /**
   * Nothing: the missed firings are counted and logged, and the job next runs at its next firing
   * (what every {@code @LeaderOnly} job did before misfires were recorded).
   */
  SKIP,

  /**
   * Runs the latest missed firing once, as soon as the new leader's acquire hooks ran, when it is
   * no older than {@link LeaderOnly#misfireThreshold()}; the earlier missed firings, and a latest
   * one that is older, are counted and logged as skipped.
   */
  RUN_ONCE
}
