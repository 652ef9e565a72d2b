package dev.conch.cli;

import dev.conch.process.ExitCodes;

/**
 * The exit statuses of {@code conch}, as the {@code conch elect} spec fixes them. Scripts branch on
 * these numbers, so they never change meaning. Those the runner also returns are its own {@link
 * ExitCodes} (from sysexits.h), so the two cannot drift apart.
 */
final class ExitStatus {

  /** Done: the office is held (--assert), a leader was shown (--who), help or version printed. */
  static final int OK = 0;

  /** --who found the office vacant; --assert found it not held by this host at the revision. */
  static final int NO = 1;

  /** --history or --why found no recorded term of the office (never led, or no history kept). */
  static final int NO_HISTORY = 3;

  /** A bad flag, value or combination; the message names it. Nothing was started. */
  static final int USAGE = ExitCodes.USAGE;

  /** etcd could not be reached, or did not answer in time (fail closed). */
  static final int UNAVAILABLE = ExitCodes.UNAVAILABLE;

  /** Leadership was lost while the child ran (without --restart); also an internal error. */
  static final int LOST = ExitCodes.LOST;

  /** The campaign wait (--wait, --nonblock) ran out before this candidate led. */
  static final int WAIT_EXPIRED = ExitCodes.WAIT_EXPIRED;

  /** Stopped by SIGINT (128 + 2). */
  static final int INTERRUPTED = ExitCodes.killedBy(2);

  /** Stopped by SIGTERM (128 + 15). */
  static final int TERMINATED = ExitCodes.killedBy(15);

  private ExitStatus() {}
}
