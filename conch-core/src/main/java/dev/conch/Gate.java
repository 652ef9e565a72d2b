package dev.conch;

import org.jspecify.annotations.Nullable;

/**
 * Consulted before each campaign: a gate may deny a candidate (quarantine, lockdown). A denied
 * candidate does not campaign, reports {@link State#DENIED} with the reason, and asks again later.
 *
 * <p>A gate other than {@link #OPEN} is asked on a hook thread and bounded by the hook timeout: one
 * that has not answered by then is interrupted and counts as a denial ("gate did not answer within
 * the hook timeout"); after the back-off the same call is awaited again while it still runs, never
 * a second one beside it. A resign or close does not wait for a gate: it interrupts it and leaves.
 * A gate that throws or answers null denies.
 */
@FunctionalInterface
public interface Gate {

  /** A gate that always allows. */
  Gate OPEN = office -> Decision.allow();

  /** Decides whether this candidate may campaign for {@code office} now. */
  Decision check(String office);

  /**
   * A gate's answer.
   *
   * @param allowed whether the candidate may campaign
   * @param reason why it may not, when it may not
   */
  record Decision(boolean allowed, @Nullable String reason) {

    /** Lets the candidate campaign. */
    public static Decision allow() {
      return new Decision(true, null);
    }

    /** Keeps the candidate out, saying why. */
    public static Decision deny(String reason) {
      return new Decision(false, reason);
    }
  }
}
