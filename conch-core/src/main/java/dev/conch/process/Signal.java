package dev.conch.process;

import dev.conch.ElectionEvent;
import dev.conch.LossReason;
import org.jspecify.annotations.Nullable;

/** What the runner thread is told: by the hook thread, the command's exit, the election, a stop. */
sealed interface Signal {

  /** The command started. */
  record ChildStarted(Child child) implements Signal {}

  /** The command exited on its own (not stopped by the runner). */
  record ChildExited(Child child) implements Signal {}

  /**
   * Leadership ended: the command was stopped and on-lose ran; {@code child} is null when it ended
   * before the command started (during the on-acquire hook).
   */
  record TermEnded(@Nullable Child child, LossReason reason) implements Signal {}

  /** The on-acquire hook failed, or the command could not be started: the office is given up. */
  record AcquireFailed(String why) implements Signal {}

  /** An event of the election. */
  record Observed(ElectionEvent event) implements Signal {}

  /** {@link ExternalCommandRunner#stop()} was called. */
  record Stop() implements Signal {}
}
