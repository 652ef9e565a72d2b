package dev.conch;

import dev.conch.FencedLock.Grant;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
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
 * The election loop, the same for every store: gate, campaign, acquire hooks, hold until the lease
 * deadline (minus the loss lead) or until the store ends the grant, lose hooks, release, and again.
 * One named thread per candidate runs it.
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
  // Held from the win on (guarded writes work in acquire hooks); believed once the hooks passed.
  private volatile Grant current;
  private volatile Grant leading;
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
    Grant grant = current;
    return grant != null ? grant.leadership().holder() : self;
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
    return believed(leading);
  }

  @Override
  public OptionalLong token() {
    return leadership().map(term -> OptionalLong.of(term.token())).orElse(OptionalLong.empty());
  }

  @Override
  public Optional<Leadership> leadership() {
    Grant grant = leading;
    return believed(grant) ? Optional.of(grant.leadership()) : Optional.empty();
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
    Grant grant = current;
    if (!believed(grant)) {
      throw new NotLeaderException(office());
    }
    return lock.guardedPut(grant, key, value);
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

  private boolean believed(Grant grant) {
    return grant != null && grant.ended().isEmpty() && ticker.nanoTime() - believedUntil(grant) < 0;
  }

  /** The failing-closed rule: a grant is believed until its deadline minus the loss lead. */
  private long believedUntil(Grant grant) {
    return grant.validUntil() - lossLead;
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

  /** Leads on {@code grant} until it ends; returns why it ended. */
  private LossReason lead(Grant grant) {
    Leadership term = grant.leadership();
    List<LeadershipHandler> started = new ArrayList<>();
    LossReason reason = null;
    current = grant;
    for (LeadershipHandler handler : handlers) {
      reason = hooks.acquire(handler, term, () -> endOf(grant), started);
      if (reason != null) {
        break;
      }
    }
    if (reason == null) {
      leading = grant;
      setState(State.LEADING);
      log.info("office {}: leading with token {}", office(), term.token());
      events.post(new ElectionEvent.Leading(office(), term.token(), term.holder()));
      observe(Optional.of(term.holder()));
      reason = hold(grant);
    }
    leading = null;
    current = null;
    wake();
    for (int i = started.size() - 1; i >= 0; i--) {
      hooks.lose(started.get(i), term, reason);
    }
    log.info("office {}: no longer leading (token {}): {}", office(), term.token(), reason);
    // The event goes out before the key is deleted: the work has stopped, and a release that waits
    // on an unreachable etcd must not hold the news back.
    switch (reason) {
      case RESIGNED, CLOSED -> {
        setState(State.RESIGNED);
        events.post(new ElectionEvent.Resigned(office(), term.token()));
      }
      case TRANSFERRED -> {
        setState(State.TRANSFERRED);
        events.post(new ElectionEvent.Transferred(office(), term.token()));
      }
      default -> {
        setState(State.LOST);
        events.post(new ElectionEvent.Lost(office(), term.token(), reason));
      }
    }
    lock.release(grant);
    if (reason == LossReason.TRANSFERRED) {
      synchronized (monitor) {
        if (command == Command.TRANSFER) {
          command = Command.RUN;
        }
        monitor.notifyAll();
      }
    }
    return reason;
  }

  /** Why the grant ended, or null while it may still be believed and no command asks to stop. */
  private LossReason endOf(Grant grant) {
    synchronized (monitor) {
      switch (command) {
        case TRANSFER -> {
          return LossReason.TRANSFERRED;
        }
        case RESIGN -> {
          return LossReason.RESIGNED;
        }
        case CLOSE -> {
          return LossReason.CLOSED;
        }
        default -> {}
      }
    }
    Optional<LossReason> ended = grant.ended();
    if (ended.isPresent()) {
      return ended.get();
    }
    long now = ticker.nanoTime();
    if (now - grant.validUntil() >= 0) {
      // The deadline itself passed before we could act (a frozen or starved process): the lease
      // may be gone and a successor may lead already.
      return LossReason.LEASE_EXPIRED;
    }
    return now - believedUntil(grant) >= 0 ? LossReason.RENEWAL_FAILED : null;
  }

  /** Waits until the grant ends, the loss lead before its deadline, or a command. */
  private LossReason hold(Grant grant) {
    synchronized (monitor) {
      while (true) {
        LossReason reason = endOf(grant);
        if (reason != null) {
          return reason;
        }
        long left = believedUntil(grant) - ticker.nanoTime();
        long waitMillis = Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left) + 1, 1000));
        try {
          monitor.wait(waitMillis);
        } catch (InterruptedException e) {
          return LossReason.CLOSED;
        }
      }
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
