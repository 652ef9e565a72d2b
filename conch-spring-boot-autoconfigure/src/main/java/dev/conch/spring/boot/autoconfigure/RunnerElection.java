package dev.conch.spring.boot.autoconfigure;

import dev.conch.Election;
import dev.conch.ElectionListener;
import dev.conch.Holder;
import dev.conch.Leadership;
import dev.conch.LeadershipHandler;
import dev.conch.State;
import dev.conch.process.ExternalCommandRunner;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The {@link Election} bean of the runner's office: the runner's own election, so that the instance
 * has one candidate per office and the endpoint, health, metrics, events and {@code @OnLeadership}
 * methods see the candidate whose term the command runs in.
 *
 * <p>The runner drives the election: {@link #start()} does nothing (the runner joins when the
 * context starts), {@link #resign()} stops the runner (command stopped, on-lose, resign), and
 * {@link #transfer()} is refused, because the runner ends for good on any hand-over it did not ask
 * for. Handlers join the {@link HandlerChain} that runs before the command starts and after it
 * stopped.
 */
final class RunnerElection implements Election {

  private final Election election;

  private final HandlerChain handlers;

  private final ExternalCommandRunner runner;

  RunnerElection(Election election, HandlerChain handlers, ExternalCommandRunner runner) {
    this.election = election;
    this.handlers = handlers;
    this.runner = runner;
  }

  ExternalCommandRunner runner() {
    return this.runner;
  }

  @Override
  public String office() {
    return this.election.office();
  }

  @Override
  public Holder candidate() {
    return this.election.candidate();
  }

  /** Does nothing: the runner joins the election when the context starts. */
  @Override
  public void start() {}

  @Override
  public State state() {
    return this.election.state();
  }

  @Override
  public boolean isLeader() {
    return this.election.isLeader();
  }

  @Override
  public OptionalLong token() {
    return this.election.token();
  }

  @Override
  public Optional<Leadership> leadership() {
    return this.election.leadership();
  }

  @Override
  public Optional<Holder> leader() {
    return this.election.leader();
  }

  @Override
  public boolean awaitLeadership(Duration timeout) throws InterruptedException {
    return this.election.awaitLeadership(timeout);
  }

  /** Stops the runner: the command's group is stopped, on-lose runs, then the office is left. */
  @Override
  public void resign() {
    this.runner.stop();
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

  @Override
  public boolean guardedPut(String key, String value) {
    return this.election.guardedPut(key, value);
  }

  /** Adds {@code handler} to the hooks that run before the command starts and after it stopped. */
  @Override
  public void addHandler(LeadershipHandler handler) {
    this.handlers.add(handler);
  }

  @Override
  public AutoCloseable addListener(ElectionListener listener) {
    return this.election.addListener(listener);
  }

  @Override
  public long droppedEvents() {
    return this.election.droppedEvents();
  }

  /** Stops the runner, which closes its election. */
  @Override
  public void close() {
    this.runner.close();
  }

  @Override
  public String toString() {
    return "RunnerElection[office=" + office() + "]";
  }
}
