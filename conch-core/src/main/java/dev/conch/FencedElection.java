package dev.conch;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A candidate, the same for every store: what users ask of an {@link Election} and its lifecycle.
 * Its loop ({@link ElectionLoop}: gate, campaign, one {@link LeadershipTerm} per win, release, and
 * again) runs on threads every election shares. Commands (resign, transfer, close) are set under a
 * monitor and handed to the loop as a step; the caller waits on the monitor for their outcome,
 * bounded by the hook timeouts.
 *
 * <p>Longer than most files here, on purpose: it is the {@link Election} API, and every method of
 * it reads or sets the same command, state and term under the one monitor the loop reads them
 * under.
 */
public final class FencedElection implements Election {

  private static final Logger log = LoggerFactory.getLogger(FencedElection.class);

  /** What the candidate is asked to do; set by the API, read by the loop. */
  enum Command {
    RUN,
    TRANSFER,
    RESIGN,
    CLOSE
  }

  private final FencedLock lock;
  private final ElectionOptions options;
  private final Holder self;
  private final EventDispatcher events;
  private final HookRunner hooks;
  private final List<LeadershipHandler> handlers = new CopyOnWriteArrayList<>();
  private final Object lifecycle = new Object();
  private final Object monitor = new Object();

  private final ElectionLoop loop;

  // Guarded by monitor.
  private Command command = Command.RUN;
  private boolean running;

  // Guarded by monitor: what a named transfer hands over, set with Command.TRANSFER.
  private HandOver.@Nullable Plan handOver;

  // Guarded by monitor: why the command was given, for the office's history; null: not said.
  private @Nullable String why;

  // Guarded by monitor: completes when the loop has left the election it joined last.
  private CompletableFuture<Void> finished = CompletableFuture.completedFuture(null);
  private boolean closed;

  private volatile State state = State.JOINED;
  // From the win on (guarded writes work in acquire hooks); leading once the hooks passed.
  private volatile @Nullable LeadershipTerm current;
  private volatile @Nullable LeadershipTerm leading;

  /** A candidate for {@code options.office()} on {@code lock}; call {@link #start()} to join. */
  public FencedElection(FencedLock lock, ElectionOptions options, Ticker ticker, Clock clock) {
    if (!lock.office().equals(options.office())) {
      throw new IllegalArgumentException(
          "lock is for office '" + lock.office() + "', options for '" + options.office() + "'");
    }
    this.lock = lock;
    this.options = options;
    this.self =
        Holder.self(options.office(), options.candidateId(), null).withPriority(options.priority());
    this.events = new EventDispatcher(options.office(), options.eventBuffer());
    this.hooks = new HookRunner(options.office(), options.hookThreads());
    this.loop = new ElectionLoop(this, lock, options, ticker, clock, events, hooks, handlers);
  }

  @Override
  public String office() {
    return options.office();
  }

  @Override
  public Holder candidate() {
    LeadershipTerm term = current;
    return term != null ? term.leadership().holder() : self;
  }

  @Override
  public void start() {
    synchronized (lifecycle) {
      // A resign still under way (resignAsync) ends first, as a blocking one would have.
      awaitLoop(() -> !running || command == Command.RUN, stopBound());
      synchronized (monitor) {
        if (closed) {
          throw new ElectionClosedException(office());
        }
        if (running) {
          if (command == Command.RESIGN || command == Command.CLOSE) {
            // Joining now would do nothing: the loop is still leaving, and would leave for good.
            throw new ConchException(
                "office '"
                    + office()
                    + "': the last resign has not finished within "
                    + Durations.format(stopBound())
                    + " (leader-only work, a lose hook or the release has not returned); call start() again once"
                    + " it has (the future of resignAsync() completes then)");
          }
          return;
        }
        running = true;
        finished = new CompletableFuture<>();
        command = Command.RUN;
        why = null;
      }
      loop.execute(loop::begin);
    }
  }

  /** Never {@link State#LEADING} for a term that is over, even before the loop has seen it end. */
  @Override
  public State state() {
    State now = state;
    if (now != State.LEADING) {
      return now;
    }
    LeadershipTerm term = leading;
    if (term == null) {
      return state; // the end state was set before the term was let go
    }
    return term.isValid() ? State.LEADING : term.endState();
  }

  @Override
  public boolean isLeader() {
    LeadershipTerm term = leading;
    return term != null && term.isValid();
  }

  @Override
  public OptionalLong token() {
    return leadership().map(term -> OptionalLong.of(term.token())).orElse(OptionalLong.empty());
  }

  @Override
  public Optional<Leadership> leadership() {
    LeadershipTerm term = leading;
    return term != null && term.isValid() ? Optional.of(term.leadership()) : Optional.empty();
  }

  @Override
  public Optional<Holder> leader() {
    return lock.leader();
  }

  @Override
  public boolean awaitLeadership(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (monitor) {
      while (!isLeader()) {
        long left = deadline - System.nanoTime();
        if (left <= 0 || closed) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(monitor, Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
      }
      return true;
    }
  }

  @Override
  public void resign() {
    stop(Command.RESIGN, null);
  }

  @Override
  public void resign(String reason) {
    stop(Command.RESIGN, reason);
  }

  @Override
  public void transfer() {
    synchronized (monitor) {
      if (current == null || command != Command.RUN) {
        throw new NotLeaderException(office());
      }
      command = Command.TRANSFER;
      why = null;
      monitor.notifyAll();
    }
    detachCaller();
    loop.execute(loop::commanded);
    awaitLoop(() -> command != Command.TRANSFER, stopBound());
  }

  /**
   * Checks the hand-over against one read of the line before anything changes (see {@link
   * HandOver}), then ends the term as {@link #transfer()} does; the release hands the office over.
   * A refusal changes nothing: the term goes on.
   */
  @Override
  public void transfer(String candidateId) {
    transfer(candidateId, null);
  }

  @Override
  public void transfer(String candidateId, @Nullable String reason) {
    Objects.requireNonNull(candidateId, "candidateId");
    transferToFirst(List.of(candidateId.strip()), reason);
  }

  @Override
  public String transferToFirst(List<String> candidateIds, @Nullable String reason) {
    if (candidateIds.isEmpty()) {
      throw new InvalidArgumentException(
          "candidateIds", "[]", "at least one candidate id to hand the office to");
    }
    LeadershipTerm term;
    synchronized (monitor) {
      term = current;
      if (term == null || command != Command.RUN) {
        throw new NotLeaderException(office());
      }
    }
    // Read outside the monitor: the loop asks it for the command, and must not wait on etcd.
    HandOver.Plan plan =
        HandOver.plan(term.leadership().holder(), readLine(), candidateIds, lock.maxTxnOps());
    synchronized (monitor) {
      if (current != term || command != Command.RUN || !term.isValid()) {
        throw new NotLeaderException(office()); // the term ended while the line was read
      }
      command = Command.TRANSFER;
      handOver = plan;
      why = reason;
      monitor.notifyAll();
    }
    detachCaller();
    loop.execute(loop::commanded);
    awaitLoop(() -> command != Command.TRANSFER, stopBound());
    return plan.targetId();
  }

  private List<Holder> readLine() {
    return read(lock.candidates(), "line");
  }

  /**
   * What the store answers of a read of the office's {@code what} (its line, its history); the
   * store bounds its own read, the stop's bound here is only a belt.
   */
  private <T> T read(CompletableFuture<T> answer, String what) {
    try {
      return answer.get(stopBound().toNanos(), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException failure) {
        throw failure;
      }
      throw new ConchException(
          "office '" + office() + "': reading the " + what + " failed", e.getCause());
    } catch (TimeoutException e) {
      throw new EtcdUnavailableException(
          "office '" + office() + "': the " + what + " was not read within " + stopBound(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConchException("office '" + office() + "': interrupted reading the " + what, e);
    }
  }

  @Override
  public boolean guardedPut(String key, String value) {
    LeadershipTerm term = current;
    if (term == null || !term.isValid()) {
      throw new NotLeaderException(office());
    }
    return term.guardedPut(lock, key, value);
  }

  @Override
  public void addHandler(LeadershipHandler handler) {
    handlers.add(Objects.requireNonNull(handler, "handler"));
  }

  @Override
  public AutoCloseable addListener(ElectionListener listener) {
    return events.add(Objects.requireNonNull(listener, "listener"));
  }

  @Override
  public long droppedEvents() {
    return events.dropped();
  }

  @Override
  public void close() {
    synchronized (lifecycle) {
      synchronized (monitor) {
        if (closed) {
          return;
        }
      }
      stop(Command.CLOSE, null);
      synchronized (monitor) {
        closed = true;
        monitor.notifyAll();
      }
      state = State.CLOSED;
      events.close();
      hooks.close();
    }
  }

  /**
   * Begins {@link #close()} without waiting: the term ends as a close ends it ({@link
   * LossReason#CLOSED}), its lose hooks run and its key is released; the future completes then, and
   * a {@link #close()} after it only waits for what is left. For closing many elections at once:
   * the slowest of their lose hooks bounds them all, not their sum.
   */
  public CompletableFuture<Void> closeAsync() {
    return ask(Command.CLOSE, null).copy();
  }

  /**
   * Leaves the election without waiting: one loop step, no thread, so that a process can leave many
   * offices at once.
   */
  @Override
  public CompletableFuture<Void> resignAsync() {
    return ask(Command.RESIGN, null).copy();
  }

  @Override
  public CompletableFuture<Void> resignAsync(String reason) {
    return ask(Command.RESIGN, reason).copy();
  }

  @Override
  public List<TermRecord> history(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit " + limit + ": at least 1 term");
    }
    return read(lock.history(limit), "history");
  }

  /** Asks the loop to leave the election; the future completes when it has. */
  private CompletableFuture<Void> ask(Command how, @Nullable String reason) {
    CompletableFuture<Void> left;
    synchronized (monitor) {
      if (!running) {
        return CompletableFuture.completedFuture(null);
      }
      if (command != how) {
        why = reason;
      }
      command = how;
      left = finished;
      monitor.notifyAll();
    }
    detachCaller();
    loop.execute(loop::commanded);
    return left;
  }

  /**
   * A term ended from inside its own leader-only work (a job that resigns) does not wait for that
   * work: it would wait for itself until the stop's bound.
   */
  private void detachCaller() {
    LeadershipTerm term = current;
    if (term != null) {
      term.detach(Thread.currentThread());
    }
  }

  private void stop(Command how, @Nullable String reason) {
    synchronized (lifecycle) {
      ask(how, reason);
      awaitLoop(() -> !running, stopBound());
      synchronized (monitor) {
        if (running) {
          log.warn("office {}: election loop did not stop within {}", office(), stopBound());
        }
      }
    }
  }

  /** Long enough for the leader-only work, every lose hook and a release: the most a stop takes. */
  private Duration stopBound() {
    return options
        .hookTimeout()
        .multipliedBy(handlers.size() + 1L)
        .plus(options.stopTimeout())
        .plusSeconds(10);
  }

  private void awaitLoop(BooleanSupplier done, Duration bound) {
    long deadline = System.nanoTime() + bound.toNanos();
    synchronized (monitor) {
      while (!done.getAsBoolean() && System.nanoTime() < deadline) {
        try {
          monitor.wait(100);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  // What the loop tells the election (on the loop).

  Command command() {
    synchronized (monitor) {
      return command;
    }
  }

  /** What the candidate asks of the current term now: resign, transfer, close, or nothing. */
  @Nullable LossReason requested() {
    synchronized (monitor) {
      return switch (command) {
        case TRANSFER -> LossReason.TRANSFERRED;
        case RESIGN -> LossReason.RESIGNED;
        case CLOSE -> LossReason.CLOSED;
        case RUN -> null;
      };
    }
  }

  void setState(State next) {
    state = next;
    notifyWaiters();
  }

  void notifyWaiters() {
    synchronized (monitor) {
      monitor.notifyAll();
    }
  }

  /** From the win on, guarded writes work (in acquire hooks too). */
  void termStarted(LeadershipTerm term) {
    current = term;
  }

  /** The term's acquire hooks passed: it leads. */
  void termLeading(LeadershipTerm term) {
    leading = term;
  }

  /** The term is over: believed no more, before its lose hooks run; {@code end} is its state. */
  void termEnding(State end) {
    state = end;
    leading = null;
    current = null;
    notifyWaiters();
  }

  /**
   * The term's grant was released. A transfer is about the term that just ended, whatever ended it:
   * the candidate queues again (a loss that raced the transfer must not leave the election for
   * good).
   */
  void termReleased() {
    synchronized (monitor) {
      if (command == Command.TRANSFER) {
        command = Command.RUN;
        why = null;
      }
      handOver = null;
      monitor.notifyAll();
    }
  }

  /**
   * What ended the term, in words, for the office's history: why the command was given, and to whom
   * a transfer hands the office.
   */
  @Nullable String endDetail(LossReason reason) {
    synchronized (monitor) {
      return switch (reason) {
        case RESIGNED -> why != null ? why : "resign() was called";
        case CLOSED -> why != null ? why : "the election was closed";
        case TRANSFERRED ->
            (handOver != null
                    ? "handed to '" + handOver.targetId() + "'"
                    : "handed to the next in line")
                + (why != null ? ": " + why : "");
        case ACQUIRE_FAILED -> "an acquire hook failed or did not finish within the hook timeout";
        case LEASE_EXPIRED ->
            "the lease is gone in etcd, or its deadline passed before the holder could act";
        case KEY_DELETED -> "its key was deleted by someone else";
        case RENEWAL_FAILED -> null; // the store knows its last error
      };
    }
  }

  /** The named hand-over asked of the term that ends, if any; taken once, by its release. */
  HandOver.@Nullable Plan takeHandOver() {
    synchronized (monitor) {
      HandOver.Plan plan = handOver;
      handOver = null;
      return plan;
    }
  }

  /** The loop left the election: a start may join again. */
  void loopFinished() {
    CompletableFuture<Void> left;
    synchronized (monitor) {
      running = false;
      left = finished;
      monitor.notifyAll();
    }
    left.complete(null);
  }
}
