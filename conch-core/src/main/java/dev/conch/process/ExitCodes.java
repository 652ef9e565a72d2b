package dev.conch.process;

/**
 * The result codes of an {@link ExternalCommandRunner}, which {@code conch elect} exits with. The
 * runner's own codes come from BSD's {@code sysexits.h}, so that they cannot be mistaken for the
 * small codes commands usually return; any other result is the command's own exit code.
 */
public final class ExitCodes {

  /** The arguments or settings were refused ({@code EX_USAGE}). */
  public static final int USAGE = 64;

  /** etcd could not be reached when the wait for leadership ran out ({@code EX_UNAVAILABLE}). */
  public static final int UNAVAILABLE = 69;

  /**
   * Leadership was lost while the command ran (lease, key, connection, quorum), without restart;
   * the command was stopped ({@code EX_SOFTWARE}).
   */
  public static final int LOST = 70;

  /**
   * The office was not won within the wait time, or at once when not waiting; nothing was run
   * ({@code EX_TEMPFAIL}).
   */
  public static final int WAIT_EXPIRED = 75;

  /**
   * The runner was stopped (shutdown, signal) before it finished on its own: 128 + SIGTERM, the
   * status a shell reports for a command ended by SIGTERM.
   */
  public static final int STOPPED = 128 + 15;

  private ExitCodes() {}

  /** The code a shell reports for a command killed by signal {@code signal}: 128 + the signal. */
  public static int killedBy(int signal) {
    return 128 + signal;
  }
}
