package dev.conch.etcd;

import dev.conch.Election;
import dev.conch.Holder;
import dev.conch.NotLeaderException;
import dev.conch.OfficeGroup;
import dev.conch.OfficeGroup.Move;
import dev.conch.State;
import dev.conch.TransferRefusedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One move of a group, on a short-lived thread of its own so that the group's thread goes on
 * publishing and reading while the offices' lose hooks run: hands a {@link ShareRule.Plan}'s
 * offices out in order, up to {@link #PARALLEL} at a time as etcd keeps up, each by {@link
 * Election#transferToFirst} to whichever of the targets still owed one ({@linkplain
 * ShareRule.Plan#count(String) its count}) stands first in the office's line, until every target
 * got its count, the offices run out, one hand-over does not go through or a lease renewal fails;
 * tells the group of each hand-over as it is made, then what came of the move. A hand-over counts
 * as a {@link Move} only when it happened: the term ended by the hand-over (not lost meanwhile) and
 * the target leads next.
 */
final class GroupMove {

  private static final Logger log = LoggerFactory.getLogger(dev.conch.OfficeGroup.class);

  /**
   * How many offices of one batch are handed over at the same time, at most: from half as many, one
   * more after each quick hand-over, half as many after a slow one.
   */
  static final int PARALLEL = 16;

  /**
   * After this many offices in a row that none of the targets still owed stands in the line of, the
   * batch ends: a target in no line is not tried against every office this member leads.
   */
  private static final int REFUSALS_IN_A_ROW = 2 * PARALLEL;

  /** What came of a move. */
  sealed interface Outcome {}

  /** These offices were handed over, and each one's target leads it. */
  record Moved(List<Move> moves) implements Outcome {}

  /** Every target tried refused (none of them is a candidate of the offices tried). */
  record Refused(Set<String> targets) implements Outcome {}

  /** No hand-over happened, or one that did not go to the target; {@code failed}: it threw. */
  record NotMoved(String why, boolean failed) implements Outcome {}

  private final String group;
  private final ShareRule.Plan plan;
  private final Function<String, @Nullable Election> elections;
  private final Duration bound;
  private final long slow;
  private final long fast;
  private final BooleanSupplier strained;
  private final Consumer<Move> made;
  private final Thread thread;
  private final Set<String> handing = ConcurrentHashMap.newKeySet();
  private final List<Thread> helpers = new CopyOnWriteArrayList<>();
  private volatile boolean stopping;

  /**
   * Starts the move.
   *
   * @param group the group's name
   * @param plan what to try
   * @param elections the group's election of an office, or null when it left the group
   * @param bound how long to wait for the end of the term and the next leader to show
   * @param quick a hand-over that takes longer than this is slow: half as many at a time after it,
   *     one more after one that took a quarter of it (the session's renewal attempt timeout)
   * @param strained whether a lease renewal failed since the move began: it starts no more
   * @param made told of each hand-over as it is made, on the thread that made it
   * @param done told of the outcome once, on the move's thread, after every {@code made}
   */
  GroupMove(
      String group,
      ShareRule.Plan plan,
      Function<String, @Nullable Election> elections,
      Duration bound,
      Duration quick,
      BooleanSupplier strained,
      Consumer<Move> made,
      Consumer<Outcome> done) {
    this.group = group;
    this.plan = plan;
    this.elections = elections;
    this.bound = bound;
    this.slow = quick.toNanos();
    this.fast = quick.toNanos() / 4;
    this.strained = strained;
    this.made = made;
    this.thread =
        new Thread(
            () -> {
              Outcome outcome;
              try {
                outcome = run();
              } catch (Throwable e) { // told to the group whatever happens, so it moves again
                outcome = new NotMoved("the move failed: " + e, true);
                log.warn("group {}: a move failed", group, e);
              }
              done.accept(outcome);
            },
            "conch-group-" + group + "-move");
    thread.setDaemon(true);
    thread.start();
  }

  /**
   * The offices whose terms this move is ending, each from its transfer until the target is seen to
   * lead it: the member still counts them (they are neither this member's nor the target's yet).
   */
  Set<String> handing() {
    return Set.copyOf(handing);
  }

  /** Waits at most {@code timeout} for the move to end. */
  boolean await(Duration timeout) throws InterruptedException {
    assert CallThreads.notHere("a move of the group's offices");
    thread.join(Math.max(1, timeout.toMillis()));
    return !thread.isAlive();
  }

  /** Hands over no more offices once the one under way is done. */
  void stop() {
    stopping = true;
  }

  /** Interrupts the move and the hand-overs under way. */
  void interrupt() {
    thread.interrupt();
    helpers.forEach(Thread::interrupt);
  }

  private Outcome run() throws InterruptedException {
    Batch batch = new Batch();
    int owed = plan.targets().stream().mapToInt(plan::count).sum();
    int threads = Math.max(1, Math.min(PARALLEL, Math.min(owed, plan.offices().size())));
    for (int i = 1; i < threads; i++) {
      Thread helper = new Thread(batch::work, thread.getName() + "-" + i);
      helper.setDaemon(true);
      helper.start();
      helpers.add(helper);
    }
    batch.work();
    for (Thread helper : helpers) {
      helper.join();
    }
    return batch.outcome();
  }

  /**
   * The plan's offices handed out by up to {@link #PARALLEL} threads: each takes the next office
   * and hands it to whichever target still owed one stands first in its line, until every target
   * got its count, the offices run out, a hand-over does not go through, {@link #REFUSALS_IN_A_ROW}
   * offices in a row had none of them in line, or a lease renewal failed.
   */
  private final class Batch {
    private final Iterator<String> next = plan.offices().iterator();
    private final Map<String, Integer> owed = new LinkedHashMap<>();
    private final List<Move> moves = new ArrayList<>();
    private final Set<String> refused = new LinkedHashSet<>();
    private int inFlight;
    private int window = PARALLEL / 2;
    private int refusedInARow;
    private boolean yielded;
    private @Nullable Outcome failed;

    Batch() {
      for (String target : plan.targets()) {
        owed.put(target, plan.count(target));
      }
    }

    void work() {
      while (true) {
        String name;
        List<String> targets;
        synchronized (this) {
          while (true) {
            // A target is offered only what the hand-overs under way cannot have taken already.
            targets =
                owed.entrySet().stream()
                    .filter(e -> e.getValue() - inFlight > 0)
                    .map(Map.Entry::getKey)
                    .toList();
            if (stopping
                || failed != null
                || targets.isEmpty()
                || !next.hasNext()
                || refusedInARow >= REFUSALS_IN_A_ROW) {
              notifyAll();
              return;
            }
            if (strained.getAsBoolean()) {
              // The lease comes first: a move can wait, a lapsed lease ends every term.
              yielded = true;
              notifyAll();
              return;
            }
            if (inFlight < window) {
              break;
            }
            try {
              wait(Math.max(1, bound.toMillis()));
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              return;
            }
          }
          name = next.next();
          inFlight++;
        }
        long started = System.nanoTime();
        @Nullable Outcome outcome;
        try {
          outcome = hand(name, targets);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          outcome = new NotMoved("interrupted", false);
        }
        long took = System.nanoTime() - started;
        synchronized (this) {
          inFlight--;
          if (outcome instanceof Moved moved) {
            refusedInARow = 0;
            for (Move move : moved.moves()) {
              moves.add(move);
              owed.merge(move.to(), -1, Integer::sum);
            }
            // As many at a time as etcd answers quickly: one more after a quick hand-over, half
            // as many after a slow one.
            if (took <= fast) {
              window = Math.min(PARALLEL, window + 1);
            } else if (took > slow) {
              window = Math.max(1, window / 2);
            }
          } else if (outcome instanceof Refused r) {
            refusedInARow++;
            refused.addAll(r.targets());
          } else if (outcome != null && failed == null) {
            failed = outcome;
          }
          notifyAll();
        }
      }
    }

    synchronized Outcome outcome() {
      if (yielded) {
        log.info(
            "group {}: a lease renewal failed; the move ends after {} offices so that the"
                + " renewals have etcd to themselves",
            group,
            moves.size());
      }
      if (!moves.isEmpty()) {
        if (failed != null) {
          log.info("group {}: moved {} offices, then: {}", group, moves.size(), failed);
        }
        return new Moved(List.copyOf(moves));
      }
      if (failed != null) {
        return failed;
      }
      if (yielded) {
        return new NotMoved("a lease renewal failed", false);
      }
      return refused.isEmpty()
          ? new NotMoved("nothing was left to hand over", false)
          : new Refused(Set.copyOf(refused));
    }
  }

  /**
   * Hands {@code name} to whichever of {@code targets} stands first in its line: {@link Moved} when
   * it happened, {@link Refused} when none of them is a candidate of it, {@link NotMoved} when it
   * failed or went elsewhere, null when this member does not lead it (any more).
   */
  private @Nullable Outcome hand(String name, List<String> targets) throws InterruptedException {
    Election election = elections.apply(name);
    if (election == null || !election.isLeader()) {
      return null;
    }
    long token = election.token().orElse(0);
    TermEnding ending = new TermEnding(token);
    AutoCloseable listening = election.addListener(ending);
    handing.add(name);
    try {
      String target = election.transferToFirst(targets, why());
      Outcome outcome = outcome(election, ending, new Move(name, target, token, plan.reason()));
      if (outcome instanceof Moved moved) {
        moved.moves().forEach(made);
      }
      return outcome;
    } catch (TransferRefusedException e) {
      log.debug("group {}: {} not handed to {}: {}", group, name, targets, e.getMessage());
      return new Refused(Set.copyOf(targets));
    } catch (NotLeaderException e) {
      return null;
    } catch (UnsupportedOperationException e) {
      return new NotMoved("elections cannot hand over by name: " + e.getMessage(), true);
    } catch (RuntimeException e) {
      return new NotMoved("handing " + name + " to " + targets + " failed: " + e, true);
    } finally {
      handing.remove(name);
      try {
        listening.close();
      } catch (Exception e) {
        log.debug("closing a listener failed", e);
      }
    }
  }

  private String why() {
    return "group '"
        + group
        + "' moved it: "
        + (plan.reason() == OfficeGroup.Reason.PRIORITY
            ? "a member of higher priority is live"
            : "this member led more than its fair share");
  }

  /** Whether the transfer that returned ended the term by hand-over, to the target. */
  private Outcome outcome(Election election, TermEnding ending, Move move)
      throws InterruptedException {
    long deadline = System.nanoTime() + bound.toNanos();
    State end = ending.awaitEnd(deadline);
    if (end != State.TRANSFERRED) {
      return new NotMoved(
          "the term of "
              + move.office()
              + " (token "
              + move.token()
              + ") ended "
              + (end == null ? "unseen" : end.name().toLowerCase(Locale.ROOT))
              + " during the hand-over to "
              + move.to(),
          false);
    }
    // The line is read from the store: the target leads as soon as the hand-over's Txn passed,
    // but a fallback release (the line changed meanwhile) lets the next in line lead instead.
    Optional<Holder> next = Optional.empty();
    while (System.nanoTime() - deadline < 0) {
      next = election.leader();
      if (next.isPresent() && !Objects.equals(election.candidate().id(), next.get().id())) {
        break;
      }
      ending.awaitEvent(deadline);
    }
    if (next.isPresent() && move.to().equals(next.get().id())) {
      return new Moved(List.of(move));
    }
    return new NotMoved(
        "handed "
            + move.office()
            + " over, but "
            + next.map(h -> "'" + h.id() + "'").orElse("nobody")
            + " leads it next, not "
            + move.to(),
        false);
  }
}
