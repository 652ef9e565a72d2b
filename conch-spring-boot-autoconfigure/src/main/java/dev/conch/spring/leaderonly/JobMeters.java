package dev.conch.spring.leaderonly;

/**
 * Counts what becomes of the firings of each {@code @Scheduled @LeaderOnly} job, by office, job and
 * outcome: the counter {@code conch.leaderonly.firings} ({@link LeaderOnlyFirings}).
 */
interface JobMeters {

  /** A firing that ran, in its term. */
  String RUN = "run";

  /** A firing that did not run here: not leading, or not claimed. */
  String SKIPPED = "skipped";

  /** A missed firing that the new leader ran. */
  String MISFIRE_RECOVERED = "misfire_recovered";

  /** A missed firing nobody runs: SKIP, older than the threshold, or before the one run. */
  String MISFIRE_SKIPPED = "misfire_skipped";

  /**
   * A run whose holder never said how it ended (crashed, or lost its key), found by the next
   * leader.
   */
  String UNKNOWN = "unknown";

  /** Counts nothing: no {@link LeaderOnlyFirings} (no Micrometer, no {@code MeterRegistry}). */
  JobMeters NONE = (office, job, outcome, count) -> {};

  /** Adds {@code count} firings of {@code job} in {@code office} with {@code outcome}. */
  void count(String office, String job, String outcome, long count);
}
