package dev.conch;

import dev.conch.FencedLock.Grant;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lifecycle and the loop of one candidate, the same for every store: gate, campaign, one {@link
 * LeadershipTerm} per win (acquire hooks, hold, lose hooks, release), and again. One named thread
 * per candidate runs the loop; commands (resign, transfer, close) reach it through a monitor.
 */
public final class FencedElection implements Election {

  private static final Logger log = LoggerFactory.getLogger(FencedElection.class);

  private enum Command {
    RUN,
    TRANSFER,
    RESIGN,
    CLOSE
  }

  private final FencedLock lock;
  private final ElectionOptions options;
  private final Ticker ticker;
  private final Clock clock;
  private final Holder self;
  private final long lossLead;
  private final EventDispatcher events;
  private final HookRunner hooks;
  private final List<LeadershipHandler> handlers = new CopyOnWriteArrayList<>();
  private final Object lifecycle = new Object();
  private final Object monitor = new Object();

  // Guarded by monitor.
  private Command command = Command.RUN;
  private Thread loop;
  private boolean campaigning;
  private boolean closed;

  private volatile State state = State.JOINED;
  // From the win on (guarded writes work in acquire hooks); leading once the hooks passed.
  private volatile LeadershipTerm current;
  private volatile LeadershipTerm leading;
  private volatile Optional<Holder> observed;

  /** A candidate for {@code options.office()} on {@code lock}; call {@link #start()} to join. */
  public FencedElection(FencedLock lock, ElectionOptions options, Ticker ticker, Clock clock) {
    if (!lock.office().equals(options.office())) {
      throw new IllegalArgumentException(
          "lock is for office '" + lock.office() + "', options for '" + options.office() + "'");
    }
    this.lock = lock;
    this.options = options;
    this.ticker = ticker;
    this.clock = clock;
    this.self = Holder.self(options.office(), options.candidateId(), null);
    this.lossLead = options.lossLead().toNanos();
    this.events = new EventDispatcher(options.office(), options.eventBuffer());
    this.hooks = new HookRunner(options, ticker);
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
      synchronized (monitor) {
        if (closed) {
          throw new ElectionClosedException(office());
        }
        if (loop != null && loop.isAlive()) {
          return;
        }
        command = Command.RUN;
        loop = new Thread(this::run, "conch-election-" + office());
        loop.setDaemon(true);
        loop.start();
      }
    }
  }

  @Override
  public State state() {
    return state;
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
    stop(Command.RESIGN);
  }

  @Override
  public void transfer() {
    synchronized (monitor) {
      if (current == null || command != Command.RUN) {
        throw new NotLeaderException(office());
      }
      command = Command.TRANSFER;
      monitor.notifyAll();
    }
    awaitLoop(() -> command != Command.TRANSFER, stopBound());
  }

  @Override
  public boolean guardedPut(String key, String value) {
    LeadershipTerm term = current;
    if (term == null || !term.isValid()) {
      throw new NotLeaderException(office());
    }
    return term.guardedPut(key, value);
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
      stop(Command.CLOSE);
      synchronized (monitor) {
        closed = true;
        monitor.notifyAll();
      }
      state = State.CLOSED;
      events.close();
      hooks.close();
    }
  }

  private void stop(Command how) {
    synchronized (lifecycle) {
      Thread thread;
      synchronized (monitor) {
        thread = loop;
        if (thread == null || !thread.isAlive()) {
          return;
        }
        command = how;
        if (campaigning) {
          thread.interrupt();
        }
        monitor.notifyAll();
      }
      try {
        thread.join(stopBound().toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (thread.isAlive()) {
        log.warn("office {}: election loop did not stop within {}", office(), stopBound());
      }
    }
  }

  /** Long enough for every lose hook and a release: the most a stop can take. */
  private Duration stopBound() {
    return options.hookTimeout().multipliedBy(handlers.size() + 1L).plusSeconds(10);
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

  private Command command() {
    synchronized (monitor) {
      return command;
    }
  }

  private void run() {
    Backoff retry = new Backoff(options.retryInitial(), options.retryMax());
    setState(State.JOINED);
    events.post(new ElectionEvent.Joined(office()));
    try {
      while (command() == Command.RUN) {
        if (!gateAllows()) {
          pause(retry.next());
          continue;
        }
        setState(State.CAMPAIGNING);
        events.post(new ElectionEvent.Campaigning(office()));
        Grant grant = campaign();
        if (grant == null) {
          if (command() == Command.RUN) {
            pause(retry.next());
          }
          continue;
        }
        LossReason reason = lead(grant);
        if (reason.isVoluntary()) {
          retry.reset();
        } else if (command() == Command.RUN) {
          pause(retry.next());
        }
      }
    } catch (RuntimeException | Error e) {
      log.error("office {}: election loop failed; leaving the election", office(), e);
    } finally {
      State last = command() == Command.CLOSE ? State.CLOSED : State.RESIGNED;
      if (state != State.RESIGNED && state != State.CLOSED) {
        events.post(new ElectionEvent.Resigned(office(), 0));
      }
      setState(last);
    }
  }

  private boolean gateAllows() {
    Gate.Decision decision;
    try {
      decision = options.gate().check(office());
    } catch (RuntimeException e) {
      decision = Gate.Decision.deny("gate failed: " + e);
    }
    if (!decision.allowed()) {
      log.warn("office {}: campaign denied: {}", office(), decision.reason());
      setState(State.DENIED);
      events.post(new ElectionEvent.Denied(office(), decision.reason()));
    }
    return decision.allowed();
  }

  /** Campaigns until this candidate leads; null when interrupted by a command or failed. */
  private Grant campaign() {
    synchronized (monitor) {
      if (command != Command.RUN) {
        return null;
      }
      campaigning = true;
    }
    try {
      return lock.acquire(self.since(clock.instant()), this::ahead, this::wake);
    } catch (InterruptedException e) {
      return null;
    } catch (ConchException e) {
      log.warn("office {}: campaign failed, will retry: {}", office(), e.getMessage());
      return null;
    } catch (RuntimeException e) {
      log.warn("office {}: campaign failed unexpectedly, will retry", office(), e);
      return null;
    } finally {
      synchronized (monitor) {
        campaigning = false;
      }
      // A command may have interrupted us just as acquire returned; that interrupt is spent here.
      Thread.interrupted();
    }
  }

  private void ahead(Optional<Holder> leader) {
    if (state != State.FOLLOWING) {
      setState(State.FOLLOWING);
    }
    leader.ifPresent(holder -> events.post(new ElectionEvent.Following(office(), holder)));
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
      events.post(new ElectionEvent.LeaderObserved(office(), leader));
    }
  }

  /**
   * Leads on {@code grant} until its term ends; returns why it ended. Whatever happens inside the
   * term, even an {@link Error}, it is no longer believed, its lose hooks run and the grant is
   * released before this returns or throws.
   */
  private LossReason lead(Grant grant) {
    LeadershipTerm term = new LeadershipTerm(lock, grant, ticker, lossLead, this::requested);
    Leadership leadership = term.leadership();
    current = term;
    LossReason reason;
    Throwable failure = null;
    try {
      reason = term.acquire(handlers, hooks);
      if (reason == null) {
        leading = term;
        setState(State.LEADING);
        log.info("office {}: leading with token {}", office(), leadership.token());
        events.post(new ElectionEvent.Leading(office(), leadership.token(), leadership.holder()));
        observe(Optional.of(leadership.holder()));
        reason = term.hold(monitor);
      }
    } catch (RuntimeException | Error e) {
      failure = e;
      reason = term.endReason(LossReason.CLOSED);
    }
    leading = null;
    current = null;
    wake();
    term.end(reason, hooks);
    log.info("office {}: no longer leading (token {}): {}", office(), leadership.token(), reason);
    // The event goes out before the key is deleted: the work has stopped, and a release that waits
    // on an unreachable etcd must not hold the news back.
    switch (reason) {
      case RESIGNED, CLOSED -> {
        setState(State.RESIGNED);
        events.post(new ElectionEvent.Resigned(office(), leadership.token()));
      }
      case TRANSFERRED -> {
        setState(State.TRANSFERRED);
        events.post(new ElectionEvent.Transferred(office(), leadership.token()));
      }
      default -> {
        setState(State.LOST);
        events.post(new ElectionEvent.Lost(office(), leadership.token(), reason));
      }
    }
    term.release();
    synchronized (monitor) {
      // A transfer is about the term that just ended, whatever ended it: the candidate queues
      // again (a loss that raced the transfer must not leave the election for good).
      if (command == Command.TRANSFER) {
        command = Command.RUN;
      }
      monitor.notifyAll();
    }
    if (failure instanceof RuntimeException runtime) {
      throw runtime;
    }
    if (failure instanceof Error error) {
      throw error;
    }
    return reason;
  }

  /** What the candidate asks of the current term now: resign, transfer, close, or nothing. */
  private LossReason requested() {
    synchronized (monitor) {
      return switch (command) {
        case TRANSFER -> LossReason.TRANSFERRED;
        case RESIGN -> LossReason.RESIGNED;
        case CLOSE -> LossReason.CLOSED;
        case RUN -> null;
      };
    }
  }

  private void wake() {
    synchronized (monitor) {
      monitor.notifyAll();
    }
  }

  private void pause(Duration delay) {
    long deadline = System.nanoTime() + delay.toNanos();
    synchronized (monitor) {
      while (command == Command.RUN) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return;
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(monitor, left);
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }

  private void setState(State next) {
    state = next;
    wake();
  }
}
