package dev.conch;

import dev.conch.FencedLock.Grant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One term of leadership, from the win to the release: it owns the grant, runs the acquire hooks,
 * holds until the term ends, waits for its leader-only work, runs the lose hooks of every handler
 * whose acquire hook was called, and tells its election, which releases the grant. Why it ends is
 * {@link LossRule}'s to say.
 *
 * <p>This is the one safe point of every way a term ends (resign, transfer, close, a gate, a lost
 * lease): the term takes no new leader-only work ({@link Leadership#startWork}), waits for what
 * runs (bounded by the stop timeout, and after an involuntary loss by the safety margin before the
 * lease deadline; at once when a successor may lead), interrupts what still runs at that bound and
 * names it ({@link Outcome#workInterrupted}), and only then runs the lose hooks. Work or a hook
 * left running after an involuntary loss is remembered ({@link #leftWorkBehind()}): the release
 * then waits for the lease deadline, so that no successor starts before it.
 *
 * <p>A term never waits: every method runs on its election's loop ({@link Serial}), and learns of a
 * change from a {@link #check()} (the store's news, a command, a timer) or from a hook that
 * returned. While it holds, one timer wakes it before the deadline minus the loss lead (and at
 * least every second: the ticker may be a test's). A step that throws, even an {@link Error}, ends
 * the term as {@link LossReason#CLOSED}; the lose hooks still run.
 *
 * <p>A resign, transfer or close asked for while an acquire hook runs interrupts that hook and
 * waits for it to return (within the hook timeout), so that its lose hook never runs beside it; if
 * it was the last, the term is announced as leading before it ends. Only the store's news and the
 * deadline give a running hook up at once.
 *
 * <p>Lose hooks run one after another, each bounded by the hook timeout. After an involuntary loss
 * the stop is also bounded by its deadline, the safety margin before the lease deadline D; a hook
 * still running then is interrupted and left behind, and those that come later are called and not
 * waited for; one that overruns the stop timeout is warned about (its work may overlap a
 * successor's). What the store says or the deadline while they run upgrades the reason (a resign
 * whose key is deleted becomes {@link LossReason#KEY_DELETED}), and a hook called with a reason
 * that allowed grace is interrupted once a successor may lead.
 *
 * <p>Longer than most files here, on purpose: the phases of a term (acquire, hold, lose) share one
 * timer, one running hook and one rule for a step that throws, and read best in order.
 */
final class LeadershipTerm implements Leadership.Validity {

  private static final Logger log = LoggerFactory.getLogger(FencedElection.class);

  private static final long MAX_SLEEP = TimeUnit.SECONDS.toNanos(1);

  /** What the term tells its election; called on the election's loop. */
  interface Outcome {

    /** Every acquire hook passed and the term still holds. */
    void leading(LeadershipTerm term);

    /** The term ended (no longer valid); its leader-only work is awaited, then its lose hooks. */
    void ending(LeadershipTerm term);

    /** The stop's bound was reached while the named leader-only work still ran: interrupted. */
    void workInterrupted(LeadershipTerm term, List<String> names);

    /** The lose hooks ran; the grant is to be released. {@code failure} is what broke the term. */
    void ended(LeadershipTerm term, LossReason reason, @Nullable Throwable failure);
  }

  private enum Phase {
    ACQUIRING,
    HOLDING,
    DRAINING,
    LOSING,
    DONE
  }

  private final Grant grant;
  private final Leadership leadership;
  private final Ticker ticker;
  private final long lossLead;
  private final long safetyMargin;
  private final long hookTimeout;
  private final long stopTimeout;
  private final Supplier<@Nullable LossReason> requested;
  private final List<LeadershipHandler> handlers;
  private final HookRunner hooks;
  private final Executor loop;
  private final Outcome outcome;
  private final List<LeadershipHandler> started = new ArrayList<>();
  private final RunningWork work = new RunningWork();
  private volatile boolean over;
  private volatile boolean leftBehind; // work or a hook still ran when an involuntary stop went on

  // Confined to the loop.
  private Phase phase = Phase.ACQUIRING;
  private HookRunner.@Nullable Hook running;
  private @Nullable LeadershipHandler runningHandler;
  private boolean interrupted; // the running acquire hook was asked to return
  private long hookStartedAt;
  private long drainStartedAt;
  private int next;
  private @Nullable ScheduledFuture<?> timer;
  private boolean warned; // the running lose hook overran the stop timeout
  private @Nullable Throwable failure;

  // Written on the loop, read by state().
  private volatile @Nullable LossReason reason;

  /**
   * @param requested what the candidate asks for now (resign, transfer, close), or null
   * @param handlers the handlers whose hooks this term runs, in order
   */
  LeadershipTerm(
      Grant grant,
      Ticker ticker,
      ElectionOptions options,
      Supplier<@Nullable LossReason> requested,
      List<LeadershipHandler> handlers,
      HookRunner hooks,
      Executor loop,
      Outcome outcome) {
    this.grant = grant;
    this.ticker = ticker;
    this.lossLead = options.lossLead().toNanos();
    this.safetyMargin = options.safetyMargin().toNanos();
    this.hookTimeout = options.hookTimeout().toNanos();
    this.stopTimeout = options.stopTimeout().toNanos();
    this.requested = requested;
    this.handlers = List.copyOf(handlers);
    this.hooks = hooks;
    this.loop = loop;
    this.outcome = outcome;
    this.leadership = grant.leadership().boundTo(this);
  }

  Leadership leadership() {
    return leadership;
  }

  Grant grant() {
    return grant;
  }

  /** Whether the term is not over and its deadline minus the loss lead is still ahead. */
  @Override
  public boolean isValid() {
    return !over
        && grant.ended().isEmpty()
        && ticker.nanoTime() - (grant.validUntil() - lossLead) < 0;
  }

  /** What {@code state()} says of a term that is no longer valid: its end, as far as known. */
  State endState() {
    LossReason why = reason;
    return why == null ? State.LOST : stateAfter(why);
  }

  /** The state a term ended for {@code why} leaves its candidate in. */
  static State stateAfter(LossReason why) {
    return switch (why) {
      case RESIGNED, CLOSED -> State.RESIGNED;
      case TRANSFERRED -> State.TRANSFERRED;
      default -> State.LOST;
    };
  }

  @Override
  public long nanosToDeadline() {
    return grant.validUntil() - ticker.nanoTime();
  }

  @Override
  public Optional<Leadership.Work> startWork(String name) {
    // Not once the loss lead was reached either: the stop that follows would have to interrupt it.
    return isValid() ? work.start(name) : Optional.empty();
  }

  @Override
  public boolean isIdle() {
    return work.isIdle();
  }

  /** Stops waiting for the leader-only work of the calling thread (it ends its own term). */
  void detach(Thread thread) {
    work.detach(thread);
  }

  /**
   * Whether leader-only work or a lose hook still ran when a stop bound by the lease deadline went
   * on without it: the key must then outlive the deadline.
   */
  boolean leftWorkBehind() {
    return leftBehind;
  }

  /** Starts the term: its acquire hooks, one after another. */
  void begin() {
    guarded(() -> acquireNext());
  }

  /** Looks at the term again: the store's news, a command, a timer. */
  void check() {
    guarded(this::look);
  }

  /** Writes through the store's fenced compare, if the term is still believed. */
  boolean guardedPut(FencedLock lock, String key, String value) {
    return lock.guardedPut(grant, key, value);
  }

  /**
   * Why the term ends now, with {@code asked} as what the candidate asked for; null if it holds.
   */
  private @Nullable LossReason decide(@Nullable LossReason asked) {
    return LossRule.decide(grant.ended(), asked, ticker.nanoTime(), grant.validUntil(), lossLead);
  }

  /** Why the term ends now that {@code asked} ends it: the facts when they say more. */
  private LossReason endReason(LossReason asked) {
    return Objects.requireNonNullElse(decide(asked), asked);
  }

  private @Nullable LossReason endReason() {
    return decide(requested.get());
  }

  private void look() {
    switch (phase) {
      case ACQUIRING -> {
        LossReason facts = decide(null);
        LossReason asked = requested.get();
        if (facts != null) {
          log.warn("office {}: leadership ended ({}) while acquire hooks ran", office(), facts);
          lose(facts);
        } else if (ticker.nanoTime() - (hookStartedAt + hookTimeout) >= 0) {
          log.warn(
              "office {}: acquire hook timed out after {}; stepping down",
              office(),
              Durations.format(java.time.Duration.ofNanos(hookTimeout)));
          lose(endReason(asked != null ? asked : LossReason.ACQUIRE_FAILED));
        } else {
          HookRunner.Hook hook = running;
          if (asked != null && !interrupted && hook != null) {
            // Asked to step down: the hook is told to return, and awaited (within its timeout), so
            // that its lose hook never runs beside it and a term whose hooks all returned counts.
            interrupted = true;
            hook.interrupt();
          }
          arm(Math.min(untilLossLead(), hookStartedAt + hookTimeout - ticker.nanoTime()));
        }
      }
      case HOLDING -> {
        LossReason end = endReason();
        if (end != null) {
          lose(end);
        } else {
          arm(untilLossLead());
        }
      }
      case DRAINING -> drain();
      case LOSING -> {
        learn();
        loseTimers();
      }
      case DONE -> {}
    }
  }

  private void acquireNext() {
    // A term whose hooks all returned did lead (its work may have run already): a resign asked
    // for meanwhile ends it after it is announced. Before that, a resign starts no further hook.
    boolean allReturned = next > 0 && next == handlers.size();
    LossReason end = allReturned ? decide(null) : endReason();
    if (end != null) {
      if (next == 0) {
        // Over before it began (a process frozen since the win): nothing is started at all.
        log.warn("office {}: leadership ended ({}) before acquire hooks ran", office(), end);
      } else {
        log.warn("office {}: leadership ended ({}) while acquire hooks ran", office(), end);
      }
      lose(end);
      return;
    }
    if (next == handlers.size()) {
      phase = Phase.HOLDING;
      outcome.leading(this);
      look();
      return;
    }
    LeadershipHandler handler = handlers.get(next++);
    HookRunner.Hook hook;
    try {
      hook = hooks.start(() -> handler.acquired(leadership));
    } catch (RejectedExecutionException e) {
      log.warn("office {}: election closed; {} not started", office(), handler);
      lose(endReason(LossReason.CLOSED));
      return;
    }
    // Its lose hook runs whatever became of the acquire: what it began must be stopped.
    started.add(handler);
    running = hook;
    runningHandler = handler;
    interrupted = false;
    hookStartedAt = ticker.nanoTime();
    hook.done.whenComplete((ok, error) -> loop.execute(() -> acquired(hook, error)));
    look();
  }

  private void acquired(HookRunner.Hook hook, @Nullable Throwable error) {
    guarded(
        () -> {
          if (running != hook || phase != Phase.ACQUIRING) {
            return; // given up already
          }
          LeadershipHandler failed = runningHandler;
          running = null;
          runningHandler = null;
          LossReason asked = requested.get();
          if (error != null && asked != null) {
            // Most likely the interrupt that asked it to return.
            log.warn("office {}: leadership ended ({}) while acquire hooks ran", office(), asked);
            lose(endReason(asked));
          } else if (error != null) {
            log.warn("office {}: the start of {} failed; stepping down", office(), failed, error);
            // Facts first: a hook that failed as the deadline passed is a loss a successor may see.
            lose(endReason(LossReason.ACQUIRE_FAILED));
          } else {
            acquireNext();
          }
        });
  }

  /**
   * Ends the term: it is no longer valid, a running acquire hook is given up, the term takes no
   * more leader-only work and waits for what runs ({@link #drain}), then the lose hook of every
   * handler whose acquire hook was called runs, in reverse order.
   */
  private void lose(LossReason why) {
    if (phase == Phase.DRAINING || phase == Phase.LOSING || phase == Phase.DONE) {
      return;
    }
    reason = why;
    over = true;
    phase = Phase.DRAINING;
    disarm();
    if (running != null) {
      running.abandon();
      running = null;
      runningHandler = null;
    }
    outcome.ending(this);
    drainStartedAt = ticker.nanoTime();
    // The last call to return wakes the term; with none running, this says so at once.
    work.close(() -> loop.execute(this::check));
    drain();
  }

  /**
   * Waits for the term's leader-only work: until it returned, or the stop's bound. The bound is the
   * stop timeout; after an involuntary loss also the safety margin before the lease deadline; and
   * none once a successor may lead. What still runs then is interrupted and named, and the lose
   * hooks run without waiting for it.
   */
  private void drain() {
    learn();
    if (work.isIdle()) {
      startLoseHooks();
      return;
    }
    long now = ticker.nanoTime();
    long bound = drainStartedAt + stopTimeout;
    if (LossRule.boundByDeadline(losing())) {
      bound = Math.min(bound, stopDeadline());
    }
    if (losing().successorMayLead()) {
      bound = now;
    }
    if (now - bound < 0) {
      arm(bound - now);
      return;
    }
    List<String> names = work.interruptAll();
    if (!names.isEmpty()) {
      if (LossRule.boundByDeadline(losing())) {
        leftBehind = true;
      }
      log.warn(
          "office {}: leader-only work {} still ran when the stop of term {} ({}) reached its"
              + " bound ({}); interrupted: what it does not stop may overlap a successor's; raise the"
              + " stop timeout or make the work heed interrupts",
          office(),
          names,
          leadership.token(),
          losing(),
          losing().successorMayLead()
              ? "a successor may lead"
              : Durations.format(java.time.Duration.ofNanos(bound - drainStartedAt)));
      outcome.workInterrupted(this, names);
    }
    startLoseHooks();
  }

  private void startLoseHooks() {
    disarm();
    phase = Phase.LOSING;
    next = started.size() - 1;
    loseNext();
  }

  private void loseNext() {
    while (next >= 0) {
      learn();
      LeadershipHandler handler = started.get(next--);
      LossReason why = losing();
      HookRunner.Hook hook;
      try {
        hook = hooks.start(() -> handler.lost(leadership, why));
      } catch (RejectedExecutionException e) {
        log.error("office {}: election closed before the stop of {} could run", office(), handler);
        continue;
      }
      if (pastStopDeadline()) {
        // Its work must still stop, and only it can stop it: it is called, not interrupted (it
        // would stop less), and not waited for, so that the hooks after it start at once too.
        leftBehind = true;
        log.warn(
            "office {}: the stop of {} called past the safety margin before the lease deadline"
                + " ({}); not waited for: work it has not stopped may overlap a successor's",
            office(),
            handler,
            why);
        continue;
      }
      running = hook;
      runningHandler = handler;
      hookStartedAt = ticker.nanoTime();
      warned = false;
      hook.done.whenComplete((ok, error) -> loop.execute(() -> lost(hook, error)));
      loseTimers();
      return;
    }
    phase = Phase.DONE;
    disarm();
    outcome.ended(this, losing(), failure);
  }

  private void lost(HookRunner.Hook hook, @Nullable Throwable error) {
    if (running != hook) {
      return;
    }
    if (error != null) {
      log.warn("office {}: the stop of {} failed", office(), runningHandler, error);
    }
    running = null;
    runningHandler = null;
    loseNext();
  }

  /**
   * What the store says, or the deadline, while the lose hooks run: a stop that began as a resign
   * (or a renewal failure) becomes the loss the facts say it is, and keeps to its rules. A lose
   * hook called with a reason that allowed grace is interrupted once a successor may lead.
   */
  private void learn() {
    LossReason facts;
    try {
      facts = decide(null);
    } catch (RuntimeException | Error e) {
      log.warn("office {}: the store failed while the lose hooks ran", office(), e);
      return;
    }
    LossReason before = losing();
    if (facts == null || LossRule.upgrade(before, facts) == before) {
      return;
    }
    reason = facts;
    log.warn("office {}: {} while the lose hooks of a {} stop ran", office(), facts, before);
    HookRunner.Hook hook = running;
    if (facts.successorMayLead() && hook != null) {
      log.warn(
          "office {}: interrupting the stop of {}: a successor may lead", office(), runningHandler);
      hook.interrupt();
    }
  }

  private boolean pastStopDeadline() {
    return LossRule.boundByDeadline(losing()) && ticker.nanoTime() - stopDeadline() >= 0;
  }

  /** After an involuntary loss, nothing is waited for past the safety margin before D. */
  private long stopDeadline() {
    return grant.validUntil() - safetyMargin;
  }

  /**
   * Bounds the lose hook under way: after an involuntary loss by the stop deadline, always by the
   * hook timeout; what overruns is interrupted and left behind, and the next one runs.
   */
  private void loseTimers() {
    if (running == null) {
      return;
    }
    long now = ticker.nanoTime();
    if (pastStopDeadline()) {
      giveUp(
          "still runs at the safety margin before the lease deadline ("
              + reason
              + "); interrupted and left behind: work it does not stop may overlap a"
              + " successor's; raise the stop timeout or make the hook heed interrupts");
      return;
    }
    long ran = now - hookStartedAt;
    if (ran >= hookTimeout) {
      giveUp(
          "timed out after "
              + Durations.format(java.time.Duration.ofNanos(hookTimeout))
              + "; interrupted and left behind");
      return;
    }
    if (ran >= stopTimeout && !warned && LossRule.boundByDeadline(losing())) {
      warned = true;
      log.warn(
          "office {}: the stop of {} still runs after the stop timeout ({}, {}): its work may overlap"
              + " a successor's; raise the stop timeout or make the hook faster",
          office(),
          runningHandler,
          Durations.format(java.time.Duration.ofNanos(stopTimeout)),
          reason);
    }
    // Woken for the next limit: the hook timeout, the stop timeout's warning, the stop deadline,
    // or (while the key is kept) the loss lead, where a resign's stop starts keeping to D.
    long wait = Math.min(hookTimeout - ran, warned ? Long.MAX_VALUE : stopTimeout - ran);
    arm(
        Math.min(
            wait, LossRule.boundByDeadline(losing()) ? stopDeadline() - now : untilLossLead()));
  }

  private void giveUp(String why) {
    log.warn("office {}: the stop of {} {}", office(), runningHandler, why);
    if (LossRule.boundByDeadline(losing())) {
      leftBehind = true;
    }
    HookRunner.Hook hook = running;
    if (hook != null) {
      hook.interrupt();
    }
    running = null;
    runningHandler = null;
    loseNext();
  }

  private long untilLossLead() {
    return grant.validUntil() - lossLead - ticker.nanoTime();
  }

  /** Wakes the term after {@code nanos} (at most a second, at least a millisecond). */
  private void arm(long nanos) {
    disarm();
    long delay = Math.max(TimeUnit.MILLISECONDS.toNanos(1), Math.min(nanos, MAX_SLEEP));
    timer =
        SharedThreads.TIMER.schedule(() -> loop.execute(this::check), delay, TimeUnit.NANOSECONDS);
  }

  private void disarm() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }

  /** Runs a step; one that throws ends the term (its lose hooks still run). */
  private void guarded(Runnable step) {
    try {
      step.run();
    } catch (RuntimeException | Error e) {
      if (phase == Phase.DRAINING || phase == Phase.LOSING || phase == Phase.DONE) {
        throw e;
      }
      failure = e;
      LossReason why;
      try {
        why = endReason(LossReason.CLOSED);
      } catch (RuntimeException | Error again) {
        why = LossReason.CLOSED;
      }
      lose(why);
    }
  }

  /** Why the term ends, once it does (the lose hooks run with it). */
  private LossReason losing() {
    return Objects.requireNonNull(reason, "the term has not ended");
  }

  private String office() {
    return leadership.office();
  }
}
