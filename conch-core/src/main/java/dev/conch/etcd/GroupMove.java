package dev.conch.etcd;

import dev.conch.Election;
import dev.conch.ElectionEvent;
import dev.conch.ElectionListener;
import dev.conch.Holder;
import dev.conch.NotLeaderException;
import dev.conch.OfficeGroup;
import dev.conch.OfficeGroup.Move;
import dev.conch.State;
import dev.conch.TransferRefusedException;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One move of a group, on a short-lived thread of its own so that the group's thread goes on
 * publishing and reading while the office's lose hooks run: tries a {@link ShareRule.Plan}'s
 * offices and targets in order, by {@link Election#transfer(String)}, until one hand-over is made,
 * then tells the group what came of it. A hand-over counts as a {@link Move} only when it happened:
 * the term ended by the hand-over (not lost meanwhile) and the target leads next.
 */
final class GroupMove {

  private static final Logger log = LoggerFactory.getLogger(dev.conch.OfficeGroup.class);

  /** What came of a move. */
  sealed interface Outcome {}

  /** The office was handed over and the target leads it. */
  record Moved(Move move) implements Outcome {}

  /** Every target tried refused (none of them is a candidate of the offices tried). */
  record Refused(Set<String> targets) implements Outcome {}

  /** No hand-over happened, or one that did not go to the target; {@code failed}: it threw. */
  record NotMoved(String why, boolean failed) implements Outcome {}

  private final String group;
  private final ShareRule.Plan plan;
  private final Function<String, @Nullable Election> elections;
  private final Duration bound;
  private final Thread thread;
  private volatile @Nullable String handing;

  /**
   * Starts the move.
   *
   * @param group the group's name
   * @param plan what to try
   * @param elections the group's election of an office, or null when it left the group
   * @param bound how long to wait for the end of the term and the next leader to show
   * @param done told of the outcome once, on the move's thread
   */
  GroupMove(
      String group,
      ShareRule.Plan plan,
      Function<String, @Nullable Election> elections,
      Duration bound,
      Consumer<Outcome> done) {
    this.group = group;
    this.plan = plan;
    this.elections = elections;
    this.bound = bound;
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
   * The office whose term this move is ending, from the transfer until the move is over: the member
   * still counts it (it is neither this member's nor the target's yet).
   */
  @Nullable String handing() {
    return handing;
  }

  /** Waits at most {@code timeout} for the move to end. */
  boolean await(Duration timeout) throws InterruptedException {
    thread.join(Math.max(1, timeout.toMillis()));
    return !thread.isAlive();
  }

  void interrupt() {
    thread.interrupt();
  }

  private Outcome run() throws InterruptedException {
    Set<String> refused = new LinkedHashSet<>();
    for (String name : plan.offices()) {
      Election election = elections.apply(name);
      if (election == null || !election.isLeader()) {
        continue;
      }
      long token = election.token().orElse(0);
      for (String target : plan.targets()) {
        Ending ending = new Ending(token);
        AutoCloseable listening = election.addListener(ending);
        try {
          handing = name;
          election.transfer(
              target,
              "group '"
                  + group
                  + "' moved it: "
                  + (plan.reason() == OfficeGroup.Reason.PRIORITY
                      ? "a member of higher priority is live"
                      : "this member led more than its fair share"));
          return outcome(election, ending, new Move(name, target, token, plan.reason()));
        } catch (TransferRefusedException e) {
          log.debug("group {}: {} not handed to {}: {}", group, name, target, e.getMessage());
          refused.add(target);
        } catch (NotLeaderException e) {
          break;
        } catch (UnsupportedOperationException e) {
          return new NotMoved("elections cannot hand over by name: " + e.getMessage(), true);
        } catch (RuntimeException e) {
          return new NotMoved("handing " + name + " to " + target + " failed: " + e, true);
        } finally {
          try {
            listening.close();
          } catch (Exception e) {
            log.debug("closing a listener failed", e);
          }
        }
      }
    }
    return refused.isEmpty()
        ? new NotMoved("nothing was left to hand over", false)
        : new Refused(refused);
  }

  /** Whether the transfer that returned ended the term by hand-over, to the target. */
  private Outcome outcome(Election election, Ending ending, Move move) throws InterruptedException {
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
      return new Moved(move);
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

  /** How the term of {@code token} ended, as the election's events tell. */
  private static final class Ending implements ElectionListener {
    private final long token;
    private @Nullable State end;
    private long events;

    Ending(long token) {
      this.token = token;
    }

    @Override
    public synchronized void onEvent(ElectionEvent event) {
      if (end == null) {
        if (event instanceof ElectionEvent.Transferred t && t.token() == token) {
          end = State.TRANSFERRED;
        } else if (event instanceof ElectionEvent.Lost l && l.token() == token) {
          end = State.LOST;
        } else if (event instanceof ElectionEvent.Resigned r && r.token() == token) {
          end = State.RESIGNED;
        }
      }
      events++;
      notifyAll();
    }

    synchronized @Nullable State awaitEnd(long deadline) throws InterruptedException {
      long left;
      while (end == null && (left = deadline - System.nanoTime()) > 0) {
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
      return end;
    }

    /** Waits for the next event of the election, at most until {@code deadline} or 100 ms. */
    synchronized void awaitEvent(long deadline) throws InterruptedException {
      long seen = events;
      long until = Math.min(deadline, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100));
      long left;
      while (events == seen && (left = until - System.nanoTime()) > 0) {
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
    }
  }
}
