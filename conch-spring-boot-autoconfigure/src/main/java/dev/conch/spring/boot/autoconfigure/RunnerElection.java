package dev.conch.spring.boot.autoconfigure;

import dev.conch.Election;
import dev.conch.ElectionListener;
import dev.conch.Holder;
import dev.conch.Leadership;
import dev.conch.LeadershipHandler;
import dev.conch.State;
import dev.conch.TermRecord;
import dev.conch.process.ExternalCommandRunner;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The {@link Election} bean of the runner's office: the current runner's own election, so that the
 * instance has one candidate per office and the endpoint, health, metrics, events and
 * {@code @OnLeadership} methods see the candidate whose term the command runs in.
 *
 * <p>A core runner runs once: once stopped, it and its election are closed. So that a context can
 * be stopped and started again (a paused test context, a CRaC checkpoint), each {@link
 * #startRunner()} after a stop builds a fresh runner with a fresh election; this bean stays the
 * same and speaks for the current one. Handlers live in the {@link HandlerChain}, which every
 * runner's election gets; listeners are moved to each new election; dropped events add up over them
 * all.
 *
 * <p>The runner drives the election: {@link #start()} does nothing (the runner joins when the
 * context starts), {@link #resign()} stops the runner (command stopped, on-lose, resign), and
 * {@link #transfer()} is refused, because the runner ends for good on any hand-over it did not ask
 * for.
 */
final class RunnerElection implements Election {

  private static final Log logger = LogFactory.getLog(RunnerElection.class);

  private final String office;

  private final HandlerChain handlers;

  private final Supplier<Generation> generations;

  private final Object monitor = new Object();

  // Guarded by monitor: the listeners and their registration with the current election.
  private final Map<ElectionListener, AutoCloseable> listeners = new LinkedHashMap<>();

  // Guarded by monitor.
  private Generation current;

  // Guarded by monitor: whether the current runner was started (or stopped) and so cannot start.
  private boolean used;

  // Guarded by monitor: events dropped by the elections of earlier runners.
  private long droppedBefore;

  // Guarded by monitor.
  private boolean closed;

  /**
   * @param first the first runner and its election, not started
   * @param generations builds each further runner and its election, not started
   */
  RunnerElection(
      String office, HandlerChain handlers, Generation first, Supplier<Generation> generations) {
    this.office = office;
    this.handlers = handlers;
    this.current = first;
    this.generations = generations;
  }

  /** The current runner: the one that runs, or the one that ran last, or the next to run. */
  ExternalCommandRunner runner() {
    synchronized (this.monitor) {
      return this.current.runner();
    }
  }

  /**
   * Starts a runner: the current one when it never ran, else a fresh one with a fresh election.
   *
   * @throws IllegalStateException when closed
   */
  void startRunner() {
    synchronized (this.monitor) {
      if (this.closed) {
        throw new IllegalStateException("The runner of office '" + this.office + "' is closed");
      }
      if (this.used) {
        renew();
      }
      this.used = true;
      this.current.runner().start();
    }
  }

  /** Stops the current runner (idempotent): command stopped, on-lose, then the office is left. */
  void stopRunner() {
    ExternalCommandRunner runner;
    synchronized (this.monitor) {
      this.used = true;
      runner = this.current.runner();
    }
    runner.stop();
  }

  // Guarded by monitor.
  private void renew() {
    // Built first: a refusal leaves everything as it was.
    Generation next = this.generations.get();
    this.droppedBefore += this.current.election().droppedEvents();
    for (Map.Entry<ElectionListener, AutoCloseable> entry : this.listeners.entrySet()) {
      close(entry.getValue());
    }
    this.current = next;
    this.listeners.replaceAll((listener, registration) -> next.election().addListener(listener));
  }

  private Election election() {
    synchronized (this.monitor) {
      return this.current.election();
    }
  }

  @Override
  public String office() {
    return this.office;
  }

  @Override
  public Holder candidate() {
    return election().candidate();
  }

  /** Does nothing: the runner joins the election when the context starts. */
  @Override
  public void start() {}

  @Override
  public State state() {
    return election().state();
  }

  @Override
  public boolean isLeader() {
    return election().isLeader();
  }

  @Override
  public OptionalLong token() {
    return election().token();
  }

  @Override
  public Optional<Leadership> leadership() {
    return election().leadership();
  }

  @Override
  public Optional<Holder> leader() {
    return election().leader();
  }

  @Override
  public boolean awaitLeadership(Duration timeout) throws InterruptedException {
    return election().awaitLeadership(timeout);
  }

  /** Stops the runner: the command's group is stopped, on-lose runs, then the office is left. */
  @Override
  public void resign() {
    stopRunner();
  }

  /**
   * Refused: the runner treats a hand-over it did not ask for as the end of its work.
   *
   * @throws UnsupportedOperationException always
   */
  @Override
  public void transfer() {
    throw new UnsupportedOperationException(
        "office '"
            + office()
            + "' is run by the ExternalCommandRunner (conch.runner.*), which cannot hand it over"
            + " and stay in the election; resign stops the runner");
  }

  /**
   * Refused, as {@link #transfer()} is.
   *
   * @throws UnsupportedOperationException always
   */
  @Override
  public void transfer(String candidateId) {
    transfer();
  }

  @Override
  public boolean guardedPut(String key, String value) {
    return election().guardedPut(key, value);
  }

  @Override
  public List<TermRecord> history(int limit) {
    return election().history(limit);
  }

  /** Adds {@code handler} to the hooks that run before the command starts and after it stopped. */
  @Override
  public void addHandler(LeadershipHandler handler) {
    this.handlers.add(handler);
  }

  /** Adds {@code listener} to the current runner's election and to every later one. */
  @Override
  public AutoCloseable addListener(ElectionListener listener) {
    synchronized (this.monitor) {
      this.listeners.put(listener, this.current.election().addListener(listener));
    }
    return () -> {
      AutoCloseable registration;
      synchronized (this.monitor) {
        registration = this.listeners.remove(listener);
      }
      if (registration != null) {
        registration.close();
      }
    };
  }

  /** Events dropped by the elections of this runner and of those before it (it only grows). */
  @Override
  public long droppedEvents() {
    synchronized (this.monitor) {
      return this.droppedBefore + this.current.election().droppedEvents();
    }
  }

  /** Stops the runner, which closes its election; no runner starts afterwards. */
  @Override
  public void close() {
    ExternalCommandRunner runner;
    synchronized (this.monitor) {
      this.closed = true;
      runner = this.current.runner();
    }
    runner.close();
  }

  private void close(AutoCloseable registration) {
    try {
      registration.close();
    } catch (Exception ex) {
      logger.debug("Removing a listener of office " + this.office + " failed", ex);
    }
  }

  @Override
  public String toString() {
    return "RunnerElection[office=" + office() + "]";
  }

  /** One runner and the election it created. */
  record Generation(ExternalCommandRunner runner, Election election) {}
}
