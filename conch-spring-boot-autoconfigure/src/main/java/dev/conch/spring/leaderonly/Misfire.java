package dev.conch.spring.leaderonly;

/**
 * What a new leader of an office does with the firings of a {@code @Scheduled} {@link
 * LeaderOnly @LeaderOnly} job that came while the office was vacant, or held by a term that did not
 * run them: {@link LeaderOnly#misfire()}.
 */
public enum Misfire {

  /**
   * The default. Each firing is claimed and recorded; a new leader counts and logs the missed ones
   * and runs none of them: the job next runs at its next firing.
   */
  SKIP,

  /**
   * Runs the latest missed firing once, as soon as the new leader's acquire hooks ran, when it is
   * no older than {@link LeaderOnly#misfireThreshold()}; the earlier missed firings, and a latest
   * one that is older, are counted and logged as skipped.
   */
  RUN_ONCE,

  /**
   * No record at all: no etcd key, no read at a new term, no thread. Nothing is known of the
   * firings missed, and a firing is not claimed, so across a hand-over between instances whose
   * clocks differ two terms may both run it, one after the other. For a job that is harmless to run
   * twice.
   */
  NONE
}
