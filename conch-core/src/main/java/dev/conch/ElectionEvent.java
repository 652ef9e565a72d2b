package dev.conch;

import java.util.List;
import java.util.Optional;

/**
 * What happened to one candidate in one office, or what it saw of the office. Events reach
 * listeners through a bounded buffer: a slow listener may miss some (they are counted), but it
 * never stalls the election. Acquire and lose hooks that must run on the transition itself are
 * {@link LeadershipHandler}s, not listeners.
 */
public sealed interface ElectionEvent {

  /** The office the event is about. */
  String office();

  /** The candidate joined the election. */
  record Joined(String office) implements ElectionEvent {}

  /** The candidate started (or restarted) a campaign. */
  record Campaigning(String office) implements ElectionEvent {}

  /** The candidate leads; {@code token} is its fencing token. */
  record Leading(String office, long token, Holder holder) implements ElectionEvent {}

  /** The candidate waits behind {@code leader}. */
  record Following(String office, Holder leader) implements ElectionEvent {}

  /** The candidate saw who leads the office, or that it is vacant (empty). */
  record LeaderObserved(String office, Optional<Holder> leader) implements ElectionEvent {}

  /** The candidate resigned; it had led with {@code token} (0 when it was not leading). */
  record Resigned(String office, long token) implements ElectionEvent {}

  /** The candidate handed the office over and queues again; it had led with {@code token}. */
  record Transferred(String office, long token) implements ElectionEvent {}

  /** Leadership ended against the candidate's will; it had led with {@code token}. */
  record Lost(String office, long token, LossReason reason) implements ElectionEvent {}

  /**
   * The term with {@code token} ended while leader-only work ({@link Leadership#startWork}) still
   * ran at the stop's bound: each named call was interrupted, and may overlap a successor's work.
   * Comes before the term's {@link Resigned}, {@link Transferred} or {@link Lost}.
   */
  record WorkInterrupted(String office, long token, List<String> work) implements ElectionEvent {
    public WorkInterrupted {
      work = List.copyOf(work);
    }
  }

  /** The gate refused to let the candidate campaign. */
  record Denied(String office, String reason) implements ElectionEvent {}
}
