package dev.conch.chaos;

import static dev.conch.LossReason.CLOSED;
import static dev.conch.LossReason.KEY_DELETED;
import static dev.conch.LossReason.LEASE_EXPIRED;
import static dev.conch.LossReason.RENEWAL_FAILED;
import static dev.conch.LossReason.RESIGNED;
import static dev.conch.LossReason.TRANSFERRED;

import dev.conch.LossReason;
import dev.conch.TermRecord;
import dev.conch.chaos.SoakReport.FaultRecord;
import dev.conch.chaos.SoakReport.Interval;
import dev.conch.chaos.SoakReport.Supervisor;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The terms the soak saw against the office's recorded history (issue 31, "proof under faults"):
 * every term whose command ran is recorded, in token order, with its supervisor as holder and an
 * end of the kind that the fault which ended it can leave ({@link #expected}); and every recorded
 * term is one the soak saw run, or one that won and ended at once before its command started.
 * docs/chaos.md, "The history under faults", says what each figure means.
 */
final class HistoryCheck {

  /**
   * What ended an observed term, as the soak knows it: its own stop at the end of the run, a fault,
   * or nothing it injected ({@link SoakReport#cause}).
   */
  record Cause(@Nullable FaultRecord fault, boolean endOfRun) {

    static final Cause END_OF_RUN = new Cause(null, true);
    static final Cause NO_FAULT = new Cause(null, false);

    static Cause of(FaultRecord fault) {
      return new Cause(fault, false);
    }

    @Override
    public String toString() {
      FaultRecord known = fault;
      return endOfRun
          ? "the soak's stop at the end"
          : known == null
              ? "no fault (a loss the soak did not cause)"
              : known.kind() + " " + known.target();
    }
  }

  /**
   * What the history may say of a term some cause ended.
   *
   * @param reasons the reasons it may record
   * @param bySuccessor whether only the successor can have written the end (the holder was dead)
   */
  record Expected(Set<LossReason> reasons, boolean bySuccessor) {

    @Override
    public String toString() {
      return reasons.stream().map(TermRecord::reasonCode).sorted().collect(Collectors.joining("|"))
          + (bySuccessor ? ", written by the successor" : "");
    }
  }

  /** The reasons a successor writes when it closes a term that ended without a word. */
  private static final Set<LossReason> SUCCESSOR_REASONS = EnumSet.of(LEASE_EXPIRED, KEY_DELETED);

  /**
   * The one table of what a term's recorded end may be, by what ended it (docs/chaos.md has it
   * too):
   *
   * <ul>
   *   <li>the soak's stop at the end (SIGTERM to every supervisor): {@code resigned} or {@code
   *       closed}, written by the holder as it releases its key;
   *   <li>{@code KILL_SUPERVISOR}: {@code lease-expired}, written by the successor (a SIGKILLed
   *       holder writes nothing; its lease expires before anyone else can win);
   *   <li>{@code FREEZE_SUPERVISOR} and {@code PARTITION}: {@code renewal-failed} (the holder still
   *       released its key) or {@code lease-expired} (it could not; the successor closed the term);
   *   <li>every etcd fault ({@code PAUSE_MEMBER}, {@code RESTART_MEMBER}, {@code KILL_MEMBER},
   *       {@code LOSE_QUORUM} and the benign ones): {@code renewal-failed} or {@code
   *       lease-expired}; a term that rode the fault out is not ended by it at all;
   *   <li>no fault the soak injected (a needless loss, or one etcd explains): {@code
   *       renewal-failed} or {@code lease-expired}, as for an etcd fault.
   * </ul>
   *
   * With {@code handOvers} (the supervisors' priorities) any term may also end {@code transferred}.
   * {@code key-deleted} is in no row: nothing in the soak deletes a holder's key.
   */
  static Expected expected(Cause cause, boolean handOvers) {
    FaultRecord fault = cause.fault();
    Expected row;
    if (cause.endOfRun()) {
      row = new Expected(EnumSet.of(RESIGNED, CLOSED), false);
    } else if (fault == null) {
      row = new Expected(EnumSet.of(RENEWAL_FAILED, LEASE_EXPIRED), false);
    } else {
      row =
          switch (fault.kind()) {
            case KILL_SUPERVISOR -> new Expected(EnumSet.of(LEASE_EXPIRED), true);
            case FREEZE_SUPERVISOR, PARTITION ->
                new Expected(EnumSet.of(RENEWAL_FAILED, LEASE_EXPIRED), false);
            case PAUSE_MEMBER,
                RESTART_MEMBER,
                KILL_MEMBER,
                LOSE_QUORUM,
                STALL_RAFT_LEADER,
                STALL_CLIENT_MEMBER,
                KILL_RAFT_LEADER ->
                new Expected(EnumSet.of(RENEWAL_FAILED, LEASE_EXPIRED), false);
          };
    }
    if (handOvers) {
      Set<LossReason> reasons = EnumSet.copyOf(row.reasons());
      reasons.add(TRANSFERRED);
      row = new Expected(reasons, row.bySuccessor());
    }
    return row;
  }

  /**
   * An observed term the history does not record as it should.
   *
   * @param supervisor the supervisor process that ran the term's command, as the soak started it
   * @param recorded what the history says of the term; {@code null} when it has no record of it
   * @param problems what is wrong, in words
   */
  record Mismatch(
      Interval term,
      Cause cause,
      Expected expected,
      @Nullable Supervisor supervisor,
      @Nullable TermRecord recorded,
      List<String> problems) {}

  /**
   * A recorded term whose command the soak never saw start: it won and ended at once (its acquire
   * failed, or it was lost or stopped before its command wrote a line).
   */
  record Unrun(TermRecord term, Supervisor supervisor, Duration held) {}

  /** A recorded entry that names no term the soak can account for, and why. */
  record Unexplained(String entry, String why) {}

  final OfficeHistory history;

  /** Distinct tokens whose command the soak saw run. */
  final int observed;

  /** Observed terms the history records with the right holder. */
  int withHolder;

  /** Observed terms recorded with the right holder, in order, and an end of the right kind. */
  int rightKind;

  /** Observed terms older than the history keeps (it held as many terms as it may). */
  int trimmed;

  final List<Mismatch> mismatches = new ArrayList<>();
  final List<Unrun> unrun = new ArrayList<>();
  final List<Unexplained> unexplained = new ArrayList<>();

  /** How many recorded terms ended for each reason (its code), and {@code open} without an end. */
  final Map<String, Long> reasons = new TreeMap<>();

  private final Duration unrunBound;

  /**
   * @param intervals the commands' lives, by start
   * @param causes what ended each of them
   * @param ttl the supervisors' TTL: a term that never ran ended within TTL + 2 s of its win
   */
  HistoryCheck(
      List<Interval> intervals,
      Function<Interval, Cause> causes,
      OfficeHistory history,
      Duration ttl) {
    this.history = history;
    this.unrunBound = ttl.plusSeconds(2);
    Map<Long, Interval> seen = new LinkedHashMap<>();
    intervals.forEach(i -> seen.putIfAbsent(i.token(), i));
    this.observed = seen.size();
    List<TermRecord> terms = history.terms();
    Map<Long, Integer> indexOf = new LinkedHashMap<>();
    for (int i = 0; i < terms.size(); i++) {
      indexOf.put(terms.get(i).token(), i);
      TermRecord term = terms.get(i);
      LossReason reason = term.reason();
      reasons.merge(reason == null ? "open" : TermRecord.reasonCode(reason), 1L, Long::sum);
    }
    long oldest = terms.isEmpty() ? Long.MAX_VALUE : terms.get(0).token();
    boolean full = terms.size() >= Candidate.HISTORY_TERMS;
    int last = -1;
    List<Interval> ran = List.copyOf(seen.values());
    for (int k = 0; k < ran.size(); k++) {
      Interval term = ran.get(k);
      Cause cause = causes.apply(term);
      Expected expected = expected(cause, history.handOvers());
      Supervisor supervisor = supervisorOf(term);
      Integer index = indexOf.get(term.token());
      if (index == null) {
        if (full && term.token() < oldest) {
          trimmed++;
        } else {
          mismatches.add(
              new Mismatch(term, cause, expected, supervisor, null, List.of("not in the history")));
        }
        continue;
      }
      TermRecord recorded = terms.get(index);
      List<String> problems = new ArrayList<>();
      String holder = holderProblem(recorded, supervisor);
      if (holder == null) {
        withHolder++;
      } else {
        problems.add(holder);
      }
      if (index < last) {
        problems.add("recorded before a term that ran earlier");
      }
      last = Math.max(last, index);
      problems.addAll(endProblems(terms, index, expected));
      Instant ended = recorded.ended();
      if (ended != null && k + 1 < ran.size()) {
        // Whoever wrote the end, it was over before the next command started (same clock): a later
        // end was written by a term further on, about a term it did not follow.
        Interval next = ran.get(k + 1);
        long endedAt = ended.getEpochSecond() * 1_000_000_000L + ended.getNano();
        if (endedAt > next.start()) {
          problems.add(
              "its end ("
                  + ended
                  + ") is after the command of the next term (token "
                  + next.token()
                  + ") started ("
                  + SoakReportText.clock(next.start())
                  + ")");
        }
      }
      if (problems.isEmpty()) {
        rightKind++;
      } else {
        mismatches.add(new Mismatch(term, cause, expected, supervisor, recorded, problems));
      }
    }
    for (int i = 0; i < terms.size(); i++) {
      TermRecord recorded = terms.get(i);
      if (!seen.containsKey(recorded.token())) {
        account(terms, i);
      }
    }
    history.unreadable().forEach(v -> unexplained.add(new Unexplained(v, "not a term record")));
  }

  /** A recorded term the soak did not see run: a short one that won, or unexplained. */
  private void account(List<TermRecord> terms, int index) {
    TermRecord recorded = terms.get(index);
    Supervisor supervisor =
        history.supervisors().stream()
            .filter(s -> s.pid() == recorded.holder().pid())
            .findFirst()
            .orElse(null);
    Instant began = recorded.holder().since();
    Instant ended = recorded.ended();
    Duration held = began != null && ended != null ? Duration.between(began, ended) : null;
    String why;
    if (supervisor == null || holderProblem(recorded, supervisor) != null) {
      why = "its holder is none of the soak's supervisors";
    } else if (recorded.isOpen()) {
      why = "no command of it ran, and it has no end";
    } else if (held == null || held.compareTo(unrunBound) > 0) {
      why =
          "no command of it ran, yet it was held "
              + (held == null ? "for an unknown time" : held.toMillis() + " ms")
              + " (more than ttl + 2 s)";
    } else {
      List<String> late = endProblems(terms, index, null);
      if (late.isEmpty()) {
        unrun.add(new Unrun(recorded, supervisor, held));
        return;
      }
      why = String.join("; ", late);
    }
    unexplained.add(new Unexplained(recorded.toJson(), why));
  }

  /** The supervisor of the term's candidate that was started last before its command. */
  private @Nullable Supervisor supervisorOf(Interval term) {
    Supervisor found = null;
    for (Supervisor s : history.supervisors()) {
      if (s.candidate() == term.candidate() && s.started() <= term.start()) {
        found = s;
      }
    }
    return found;
  }

  /** Why the recorded holder is not {@code supervisor} (host:pid, as conch elect names itself). */
  private @Nullable String holderProblem(TermRecord recorded, @Nullable Supervisor supervisor) {
    if (supervisor == null) {
      return "the soak knows no supervisor of the candidate";
    }
    String id = history.host() + ":" + supervisor.pid();
    if (recorded.holder().pid() != supervisor.pid()
        || !history.host().equals(recorded.holder().host())
        || !id.equals(recorded.holder().id())) {
      return "holder '"
          + recorded.holder().id()
          + "' (pid "
          + recorded.holder().pid()
          + "), not the supervisor '"
          + id
          + "'";
    }
    return null;
  }

  /**
   * What is wrong with the recorded end of {@code terms[index]}: none, a reason not {@code
   * expected} (when given), written by neither its holder nor its successor, a successor's reason
   * written by someone else, or an end after the next term began (a stale writer).
   */
  private static List<String> endProblems(
      List<TermRecord> terms, int index, @Nullable Expected expected) {
    TermRecord term = terms.get(index);
    LossReason reason = term.reason();
    List<String> problems = new ArrayList<>();
    if (reason == null) {
      problems.add("no end recorded");
      return problems;
    }
    if (expected != null && !expected.reasons().contains(reason)) {
      problems.add("ended " + TermRecord.reasonCode(reason) + ", expected " + expected);
    }
    TermRecord next = index + 1 < terms.size() ? terms.get(index + 1) : null;
    String by = term.recordedBy();
    boolean byHolder = by != null && by.equals(term.holder().id());
    boolean bySuccessor = by != null && next != null && by.equals(next.holder().id());
    if (!byHolder && !bySuccessor) {
      problems.add("its end was written by '" + by + "': neither its holder nor its successor");
    } else if (!byHolder && !SUCCESSOR_REASONS.contains(reason)) {
      problems.add("its successor wrote " + TermRecord.reasonCode(reason));
    } else if (expected != null && expected.bySuccessor() && !bySuccessor) {
      problems.add("its end was written by its holder, after the fault had killed it");
    }
    Instant ended = term.ended();
    Instant nextBegan = next == null ? null : next.holder().since();
    if (next != null && ended != null && nextBegan != null && ended.isAfter(nextBegan)) {
      problems.add(
          "its end ("
              + ended
              + ") is after the next term (token "
              + next.token()
              + ") began ("
              + nextBegan
              + ")");
    }
    return problems;
  }

  /** Observed terms the history does not record. */
  List<Mismatch> missing() {
    return mismatches.stream().filter(m -> m.recorded() == null).toList();
  }

  /** Observed terms recorded wrongly: holder, order, or an end not of the right kind. */
  List<Mismatch> wrong() {
    return mismatches.stream().filter(m -> m.recorded() != null).toList();
  }

  /** Whether the history was read and agrees with every term the soak saw. */
  boolean holds() {
    return history.error() == null && mismatches.isEmpty() && unexplained.isEmpty();
  }
}
