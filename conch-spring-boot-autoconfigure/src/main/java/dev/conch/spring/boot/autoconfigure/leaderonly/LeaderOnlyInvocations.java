package dev.conch.spring.boot.autoconfigure.leaderonly;

/**
 * Told of each call of a {@link LeaderOnly @LeaderOnly} method: whether it ran or was skipped. The
 * meters implement it; so can a test.
 */
public interface LeaderOnlyInvocations {

  /** Does nothing. */
  LeaderOnlyInvocations NONE = new LeaderOnlyInvocations() {};

  /**
   * The method runs: this instance leads {@code office}.
   *
   * @param method the method, as {@code Class.method()}
   */
  default void run(String office, String method) {}

  /**
   * The call was skipped: this instance does not lead {@code office}.
   *
   * @param method the method, as {@code Class.method()}
   */
  default void skipped(String office, String method) {}
}
