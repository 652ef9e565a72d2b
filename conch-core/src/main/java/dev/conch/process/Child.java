package dev.conch.process;

import dev.conch.Leadership;

/** The command as started for one term of leadership. */
final class Child {

  private final Leadership term;
  private final ProcessGroup group;
  private final long startedAt;
  private volatile boolean ending;
  private boolean ended; // guarded by this
  private boolean handled; // runner thread only

  Child(Leadership term, ProcessGroup group, long startedAt) {
    this.term = term;
    this.group = group;
    this.startedAt = startedAt;
  }

  /** The term it runs for. */
  Leadership term() {
    return term;
  }

  /** Its process group. */
  ProcessGroup group() {
    return group;
  }

  /** When it started, on the runner's ticker. */
  long startedAt() {
    return startedAt;
  }

  /** Whether the runner is stopping it, so that its exit is not its own. */
  boolean isEnding() {
    return ending;
  }

  /**
   * Runs {@code stop} once for this child, however many paths end it (the lose hook, a resign, the
   * runner's last sweep); later callers wait until the first one is done.
   *
   * @return whether this call ran it
   */
  synchronized boolean end(Runnable stop) {
    if (ended) {
      return false;
    }
    ending = true;
    try {
      stop.run();
    } finally {
      ended = true;
    }
    return true;
  }

  /** Whether the runner thread has yet to act on its end; true once only. */
  boolean handle() {
    if (handled) {
      return false;
    }
    handled = true;
    return true;
  }
}
