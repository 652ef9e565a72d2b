package dev.conch;

import dev.conch.FencedLock.Grant;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The loop of one candidate, the same for every store: gate, campaign, one {@link LeadershipTerm}
 * per win, release, and again. It is a series of steps that never wait, run one after another
 * ({@link Serial}) on the threads every election shares; each step hands the next one to whatever
 * will tell of it (the store, a hook, a gate, a timer), so following, holding and backing off cost
 * a watch or a timer, not a thread. Its {@link FencedElection} holds the commands and what users
 * read (state, the term).
 *
 * <p>Longer than most files here, on purpose: its steps run on the candidate's one serial and share
 * what is under way (the campaign, the gate check, the pause, the term, the back-off), and read
 * best in the order they run; split, each part would take all of that state.
 */
final class ElectionLoop {

  private static final Logger log = LoggerFactory.getLogger(FencedElection.class);

  private final FencedElection election;
  private final String office;
  private final FencedLock lock;
  private final ElectionOptions options;
  private final Ticker ticker;
  private final Clock clock;
  private final Holder self;
  private final EventDispatcher events;
  private final HookRunner hooks;
  private final List<LeadershipHandler> handlers;
  private final Serial loop;

  // Confined to the loop.
  private Backoff retry;
  private long campaigns;
  private @Nullable CompletableFuture<Grant> campaign;
  private @Nullable ScheduledFuture<?> pause;
  private @Nullable Object pauseToken;
  // The last check asked; it may still run after the loop gave it up.
  private @Nullable GateCheck gate;
  private @Nullable ScheduledFuture<?> gateTimer; // while the loop waits for the gate
  private @Nullable String lastDenial; // the reason of the denial logged last, until allowed
  private @Nullable LeadershipTerm term;
  private @Nullable Optional<Holder> observed;

  ElectionLoop(
      FencedElection election,
      FencedLock lock,
      ElectionOptions options,
      Ticker ticker,
      Clock clock,
      EventDispatcher events,
      HookRunner hooks,
      List<LeadershipHandler> handlers) {
    this.election = election;
    this.office = options.office();
    this.lock = lock;
    this.options = options;
    this.ticker = ticker;
    this.clock = clock;
    this.self =
        Holder.self(options.office(), options.candidateId(), null).withPriority(options.priority());
    this.retry = new Backoff(options.retryInitial(), options.retryMax());
    this.events = events;
    this.hooks = hooks;
    this.handlers = handlers;
    this.loop = new Serial("conch-election-" + office, SharedThreads.LOOPS, this::failed);
  }

  /** Runs {@code step} on the loop, after the steps handed in before it. */
  void execute(Runnable step) {
    loop.execute(step);
  }

  /** Joins: the loop's first step. */
  void begin() {
    retry.reset();
    election.setState(State.JOINED);
    events.post(new ElectionEvent.Joined(office));
    next();
  }

  /** What a command asks of the step under way: a campaign is withdrawn, a pause cut short. */
  void commanded() {
    if (gateTimer != null) {
      stopWaitingForGate();
      interruptGate();
      next(); // leaves
    } else if (campaign != null) {
      campaign.cancel(false); // campaigned(…) goes on from there
    } else if (pause != null) {
      pause.cancel(false);
      pause = null;
      next();
    } else if (term != null) {
      term.check();
    }
  }

  /** Campaigns again, after asking the gate, unless a command says to leave. */
  private void next() {
    if (election.command() != FencedElection.Command.RUN) {
      finish();
      return;
    }
    if (options.gate() == Gate.OPEN) {
      gated(Gate.Decision.allow());
      return;
    }
    GateCheck check = gate;
    if (check == null || !check.running()) {
      try {
        check = GateCheck.ask(hooks, options.gate(), office);
      } catch (RejectedExecutionException e) {
        gated(Gate.Decision.deny("election closed"));
        return;
      }
      gate = check;
      GateCheck asked = check;
      check.done().whenComplete((ok, error) -> loop.execute(() -> answered(asked)));
    } // else: a check given up earlier still runs; it is awaited again, not asked anew
    ScheduledFuture<?>[] wait = new ScheduledFuture<?>[1];
    wait[0] =
        SharedThreads.TIMER.schedule(
            () -> loop.execute(() -> gateOverran(wait[0])),
            options.hookTimeout().toNanos(),
            TimeUnit.NANOSECONDS);
    gateTimer = wait[0];
  }

  private void answered(GateCheck check) {
    if (check == gate && gateTimer != null) {
      stopWaitingForGate();
      gated(check.answer());
    }
  }

  /** The gate did not answer within the hook timeout: a denial, and asked again after back-off. */
  private void gateOverran(ScheduledFuture<?> wait) {
    if (wait != gateTimer) {
      return; // answered meanwhile, or no longer awaited
    }
    gateTimer = null;
    interruptGate();
    gated(
        Gate.Decision.deny(
            "gate did not answer within the hook timeout ("
                + Durations.format(options.hookTimeout())
                + ")"));
  }

  private void stopWaitingForGate() {
    ScheduledFuture<?> timer = gateTimer;
    if (timer != null) {
      timer.cancel(false);
    }
    gateTimer = null;
  }

  private void interruptGate() {
    GateCheck check = gate;
    if (check != null) {
      check.interrupt();
    }
  }

  private void gated(Gate.Decision decision) {
    if (election.command() != FencedElection.Command.RUN) {
      finish();
      return;
    }
    if (decision == null || !decision.allowed()) {
      // A gate's own Decision may carry no reason; the event and the log always say one.
      String reason =
          decision == null
              ? "gate failed"
              : Objects.requireNonNullElse(decision.reason(), "denied by the gate");
      // Once per reason: a gate that keeps denying for the same reason (a quarantine, a health
      // indicator that stays down) is asked again after every back-off, and would fill the log.
      if (reason.equals(lastDenial)) {
        log.debug("office {}: campaign denied: {}", office, reason);
      } else {
        log.warn("office {}: campaign denied: {}", office, reason);
      }
      lastDenial = reason;
      election.setState(State.DENIED);
      events.post(new ElectionEvent.Denied(office, reason));
      pause(retry.next());
      return;
    }
    lastDenial = null;
    election.setState(State.CAMPAIGNING);
    events.post(new ElectionEvent.Campaigning(office));
    long round = ++campaigns;
    CompletableFuture<Grant> started;
    try {
      started =
          lock.campaign(
              self.since(clock.instant()),
              leader -> loop.execute(() -> ahead(round, leader)),
              this::wake);
    } catch (RuntimeException e) {
      log.warn("office {}: campaign failed unexpectedly, will retry", office, e);
      pause(retry.next());
      return;
    }
    campaign = started;
    started.whenComplete((grant, error) -> loop.execute(() -> campaigned(started, grant, error)));
  }

  private void campaigned(CompletableFuture<Grant> done, Grant grant, Throwable error) {
    if (campaign != done) {
      if (grant != null) {
        // Won just as the loop gave the campaign up (a failed step): no term will hold it.
        lock.release(grant);
      }
      return;
    }
    campaign = null;
    if (error == null) {
      lead(grant);
      return;
    }
    if (!done.isCancelled()) {
      Throwable cause = error instanceof CompletionException ? error.getCause() : error;
      if (cause instanceof ConchException) {
        // A failure of the store's that fails its offices alike is said by the store, once.
        if (!lock.reportCampaignFailure(cause)) {
          log.warn("office {}: campaign failed, will retry: {}", office, cause.getMessage());
        }
      } else {
        log.warn("office {}: campaign failed unexpectedly, will retry", office, cause);
      }
    }
    if (election.command() == FencedElection.Command.RUN) {
      pause(retry.next());
    } else {
      next();
    }
  }

  private void ahead(long round, Optional<Holder> leader) {
    if (round != campaigns || campaign == null) {
      return; // news of a campaign that is over
    }
    if (election.state() != State.FOLLOWING) {
      election.setState(State.FOLLOWING);
    }
    leader.ifPresent(holder -> events.post(new ElectionEvent.Following(office, holder)));
    observe(leader);
  }

  private void observe(Optional<Holder> leader) {
    Optional<Holder> before = observed;
    boolean same =
        before != null
            && before.isPresent() == leader.isPresent()
            && (leader.isEmpty() || before.get().rev() == leader.get().rev());
    if (!same) {
      observed = leader;
      events.post(new ElectionEvent.LeaderObserved(office, leader));
    }
  }

  private void lead(Grant grant) {
    LeadershipTerm started =
        new LeadershipTerm(
            grant, ticker, options, election::requested, handlers, hooks, loop, new TermOutcome());
    term = started;
    election.termStarted(started);
    started.begin();
  }

  /** How a term tells the election of its course. */
  private final class TermOutcome implements LeadershipTerm.Outcome {

    @Override
    public void leading(LeadershipTerm term) {
      Leadership leadership = term.leadership();
      election.termLeading(term);
      election.setState(State.LEADING);
      log.info("office {}: leading with token {}", office, leadership.token());
      events.post(new ElectionEvent.Leading(office, leadership.token(), leadership.holder()));
      observe(Optional.of(leadership.holder()));
    }

    @Override
    public void ending(LeadershipTerm term) {
      election.termEnding(term.endState());
      wake();
    }

    @Override
    public void workInterrupted(LeadershipTerm term, List<String> names) {
      events.post(new ElectionEvent.WorkInterrupted(office, term.leadership().token(), names));
    }

    @Override
    public void ended(LeadershipTerm term, LossReason reason, @Nullable Throwable failure) {
      Leadership leadership = term.leadership();
      log.info("office {}: no longer leading (token {}): {}", office, leadership.token(), reason);
      // The event goes out before the key is deleted: the work has stopped, and a release that
      // waits on an unreachable etcd must not hold the news back.
      State end = LeadershipTerm.stateAfter(reason);
      election.setState(end);
      term.grant().ending(reason, election.endDetail(reason));
      switch (end) {
        case RESIGNED -> events.post(new ElectionEvent.Resigned(office, leadership.token()));
        case TRANSFERRED -> events.post(new ElectionEvent.Transferred(office, leadership.token()));
        default -> events.post(new ElectionEvent.Lost(office, leadership.token(), reason));
      }
      CompletableFuture<Void> release = new CompletableFuture<>();
      long hold = holdUntilDeadline(term, reason);
      Runnable releasing =
          () -> {
            try {
              release(term, reason).whenComplete((ok, error) -> release.complete(null));
            } catch (RuntimeException | Error e) {
              log.warn("office {}: release failed", office, e);
              release.complete(null);
            }
          };
      if (hold > 0) {
        SharedThreads.TIMER.schedule(() -> loop.execute(releasing), hold, TimeUnit.NANOSECONDS);
      } else {
        releasing.run();
      }
      release.whenComplete((ok, error) -> loop.execute(() -> released(reason, failure)));
    }
  }

  /**
   * How long the key is kept after an involuntary loss whose work or lose hook was left running:
   * until the lease deadline D, so that no successor starts before the time the timing budget
   * promises (deleted at once, it would let one lead at D minus the safety margin beside that
   * work). 0 otherwise: the work stopped, or the key is gone already.
   */
  private long holdUntilDeadline(LeadershipTerm term, LossReason reason) {
    if (!term.leftWorkBehind() || !LossRule.boundByDeadline(reason) || reason.successorMayLead()) {
      return 0;
    }
    long hold = term.grant().validUntil() - ticker.nanoTime();
    if (hold > 0) {
      log.warn(
          "office {}: work of term {} was left running; its key is kept until the lease deadline"
              + " ({} from now) so that no successor starts beside it",
          office,
          term.leadership().token(),
          Durations.format(Duration.ofNanos(hold)));
    }
    return hold;
  }

  /**
   * Releases the grant: by the named hand-over asked for, if the term ended as a transfer; else
   * plainly (a loss that overtook the transfer, the key already gone, makes it pointless).
   */
  private CompletableFuture<Void> release(LeadershipTerm term, LossReason reason) {
    HandOver.Plan plan = election.takeHandOver();
    if (plan == null) {
      return lock.release(term.grant());
    }
    if (reason != LossReason.TRANSFERRED) {
      log.warn(
          "office {}: the term ended as {} before it could hand over to '{}'; released plainly",
          office,
          reason,
          plan.targetId());
      return lock.release(term.grant());
    }
    return HandOver.carryOut(lock, term.grant(), plan);
  }

  private void released(LossReason reason, @Nullable Throwable failure) {
    term = null;
    election.termReleased();
    if (failure != null) {
      log.error("office {}: election loop failed; leaving the election", office, failure);
      finish();
    } else if (reason.isVoluntary()) {
      retry.reset();
      next();
    } else if (election.command() == FencedElection.Command.RUN) {
      pause(retry.next());
    } else {
      next();
    }
  }

  /** Campaigns again after {@code delay}, unless a command comes first. */
  private void pause(Duration delay) {
    Object mine = new Object();
    pauseToken = mine;
    pause =
        SharedThreads.TIMER.schedule(
            () ->
                loop.execute(
                    () -> {
                      if (pauseToken == mine && pause != null) {
                        pause = null;
                        next();
                      }
                    }),
            delay.toNanos(),
            TimeUnit.NANOSECONDS);
  }

  /** A step that failed outside a term (a term handles its own): the candidate leaves. */
  private void failed(Throwable error) {
    log.error("office {}: election loop failed; leaving the election", office, error);
    if (campaign != null) {
      campaign.cancel(false); // withdraws the key
      campaign = null;
    }
    if (pause != null) {
      pause.cancel(false);
      pause = null;
    }
    if (gateTimer != null) {
      stopWaitingForGate();
      interruptGate();
    }
    if (term == null) {
      finish();
    }
  }

  private void finish() {
    State last = election.command() == FencedElection.Command.CLOSE ? State.CLOSED : State.RESIGNED;
    if (election.state() != State.RESIGNED && election.state() != State.CLOSED) {
      events.post(new ElectionEvent.Resigned(office, 0));
    }
    election.setState(last);
    election.loopFinished();
  }

  /** The store's news about the grant (ended, renewed): the term looks again. */
  void wake() {
    election.notifyWaiters();
    loop.execute(
        () -> {
          if (term != null) {
            term.check();
          }
        });
  }
}
