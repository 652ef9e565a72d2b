package dev.conch.spring.health;

import dev.conch.Election;
import dev.conch.State;
import dev.conch.spring.Elections;
import dev.conch.spring.support.ExternalCommandRunnerLifecycle;
import dev.conch.spring.support.PhasedLifecycle;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationEventPublisher;

/**
 * Pauses the candidacy of this instance for the offices whose required health indicators are not
 * UP, and resumes it once they are: one scheduled thread of its own, {@code conch-health}, checks
 * every indicator any office requires at a fixed interval and decides; the health calls of a round
 * run on a thread of the checks' executor ({@code conch-health-check-<n>}), bounded by the timeout
 * (a round that hangs counts as not UP, and is awaited again rather than asked twice), so that no
 * health check can stall an election.
 *
 * <p>One mechanism: the office's {@link CandidacyPauses#gate gate} denies every campaign while it
 * is paused; on a pause, a candidate in the election (leading, or waiting in the queue) leaves it
 * as a resign does (lose hooks run, lifecycle beans stop, the key is released) and joins again at
 * once, where the gate keeps it out. A leader that resigned stays out for the quarantine, even when
 * UP again. Each pause and resume is logged once and published as a {@link CandidacyPausedEvent} or
 * {@link CandidacyResumedEvent}.
 *
 * <p>Infrastructure of the starter, created by its auto-configuration; applications do not use it.
 * It starts after the elections and stops before them.
 */
public final class HealthGatedCandidacy extends PhasedLifecycle {

  /** Later than {@link ExternalCommandRunnerLifecycle#PHASE}: stops before the elections. */
  public static final int PHASE = ExternalCommandRunnerLifecycle.PHASE + 256;

  /** How often the required indicators are checked by default: every second. */
  public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(1);

  /** How long one round of checks may take by default before the indicators count as not UP. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

  private static final Log logger = LogFactory.getLog(HealthGatedCandidacy.class);

  private final CandidacyPauses pauses;

  private final Elections elections;

  private final HealthRounds rounds;

  private final ApplicationEventPublisher publisher;

  private final Clock clock;

  private final Duration interval;

  private final Map<String, ExternalCommandRunnerLifecycle> runners = new ConcurrentHashMap<>();

  private final Set<String> leaving = ConcurrentHashMap.newKeySet();

  private @Nullable ScheduledExecutorService poller;

  /**
   * @param probe what is wrong with a contributor or group, by name; {@code null} when it is UP
   * @param interval how often the indicators are checked; more than zero
   * @param timeout how long a round of checks may take before the indicators count as not UP
   * @param checks where the rounds run, a thread each (a round that hangs keeps its thread)
   */
  public HealthGatedCandidacy(
      CandidacyPauses pauses,
      Elections elections,
      Function<String, @Nullable String> probe,
      ApplicationEventPublisher publisher,
      Clock clock,
      Duration interval,
      Duration timeout,
      Executor checks) {
    super(PHASE);
    this.pauses = pauses;
    this.elections = elections;
    this.rounds = new HealthRounds(probe, timeout, checks);
    this.publisher = publisher;
    this.clock = clock;
    this.interval = interval;
    pauses.watchedBy(this);
  }

  /**
   * Leaves and joins the runner's office by stopping {@code runner} and starting a fresh one, as
   * the runner's election ends with its runner.
   */
  public void addRunner(ExternalCommandRunnerLifecycle runner) {
    this.runners.put(runner.office(), runner);
  }

  /**
   * Makes {@code indicator} count as {@code status} ({@code "DOWN"}, {@code "UP"}), whatever it
   * reports, until {@link #reset()}: for the test kit.
   */
  public void simulate(String indicator, String status) {
    this.rounds.simulate(indicator, status);
  }

  /** Ends every simulation and every pause, quarantines included: for the test kit. */
  public void reset() {
    this.rounds.clearSimulations();
    for (String office : this.elections.offices()) {
      if (this.pauses.pause(office).isPresent()) {
        this.pauses.resumed(office);
        publish(new CandidacyResumedEvent(this, office));
      }
    }
  }

  @Override
  protected void begin() {
    if (this.pauses.requirements().stream().allMatch(r -> r.indicators().isEmpty())) {
      this.pauses.checked(); // nothing to check: no thread
      return;
    }
    ScheduledExecutorService polls =
        Executors.newSingleThreadScheduledExecutor(
            runnable -> {
              Thread thread = new Thread(runnable, "conch-health");
              thread.setDaemon(true);
              return thread;
            });
    this.poller = polls;
    polls.scheduleWithFixedDelay(this::poll, 0, this.interval.toNanos(), TimeUnit.NANOSECONDS);
  }

  @Override
  protected void end(Runnable callback) {
    if (this.poller != null) {
      this.poller.shutdownNow();
    }
    this.rounds.cancel(); // interrupts a check that hangs
    callback.run();
  }

  private void poll() {
    try {
      Set<String> names = new LinkedHashSet<>();
      this.pauses.requirements().forEach(r -> names.addAll(r.indicators()));
      Map<String, @Nullable String> problems = this.rounds.check(names);
      Instant now = this.clock.instant();
      for (Election election : this.elections.all()) {
        if (!this.pauses.isGated(election.office())) {
          continue; // the application's own election: no gate would keep it out
        }
        this.pauses
            .requirement(election.office())
            .ifPresent(requirement -> decide(election, requirement, problems, now));
      }
    } catch (InterruptedException ex) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException ex) {
      logger.warn("Checking the health that conch's offices require failed", ex);
    } catch (Error ex) {
      // Not thrown on: the executor would end the checks without a word, and every office would
      // stay paused or unpaused as it is now, whatever its health.
      logger.error(
          "Checking the health that conch's offices require failed with an Error; checking goes"
              + " on every "
              + this.interval.toMillis()
              + "ms",
          ex);
    } finally {
      this.pauses.checked();
    }
  }

  private void decide(
      Election election,
      CandidacyPauses.Requirement requirement,
      Map<String, @Nullable String> problems,
      Instant now) {
    String office = election.office();
    String culprit = null;
    String reason = null;
    for (String name : requirement.indicators()) {
      reason = problems.get(name);
      if (reason != null) {
        culprit = name;
        break;
      }
    }
    CandidacyPauses.Pause current = this.pauses.pause(office).orElse(null);
    boolean inElection = isInElection(election.state());
    if (culprit != null && reason != null) {
      boolean leads = election.isLeader();
      Instant until = (current != null) ? current.until() : null;
      if (leads && !requirement.quarantine().isZero()) {
        until = now.plus(requirement.quarantine());
      }
      CandidacyPauses.Pause next = new CandidacyPauses.Pause(culprit, reason, false, until);
      this.pauses.paused(office, next);
      if (current == null || current.healthy() || !current.reason().equals(reason)) {
        logger.warn(
            "office "
                + office
                + ": candidacy paused (requires "
                + culprit
                + "): "
                + next.describe());
        publish(new CandidacyPausedEvent(this, office, culprit, reason, leads, until));
      }
      if (inElection) {
        leave(office, election, reason);
      }
    } else if (current != null) {
      Instant until = current.until();
      if (until != null && now.isBefore(until)) {
        if (!current.healthy()) {
          this.pauses.paused(
              office,
              new CandidacyPauses.Pause(current.indicator(), current.reason(), true, until));
          logger.info(
              "office "
                  + office
                  + ": "
                  + current.indicator()
                  + " is UP; quarantined until "
                  + until);
        }
        if (inElection) {
          leave(office, election, "quarantined until " + until);
        }
      } else {
        this.pauses.resumed(office);
        logger.info("office " + office + ": candidacy resumed: " + current.indicator() + " is UP");
        publish(new CandidacyResumedEvent(this, office));
      }
    }
  }

  /** Leaves the election as a resign does, and joins again, where the gate keeps it out. */
  private void leave(String office, Election election, String reason) {
    if (!this.leaving.add(office)) {
      return;
    }
    logger.warn(
        "office "
            + office
            + ": "
            + (election.isLeader() ? "resigning" : "withdrawing from the election")
            + ": "
            + reason);
    ExternalCommandRunnerLifecycle runner = this.runners.get(office);
    if (runner != null) {
      // The runner's command is stopped (SIGTERM, on-lose, then the office is left) on a thread of
      // the lifecycle's own; a fresh runner joins afterwards, kept out by the gate.
      runner.stop(() -> rejoinLater(office, runner::start));
      return;
    }
    CompletableFuture<Void> left;
    try {
      left = election.resignAsync("the health it requires failed: " + reason);
    } catch (RuntimeException ex) {
      this.leaving.remove(office);
      logger.warn("office " + office + ": resigning failed", ex);
      return;
    }
    left.whenComplete(
        (done, error) -> {
          if (error != null) {
            logger.warn("office " + office + ": resigning failed", error);
          }
          rejoinLater(office, election::start);
        });
  }

  private void rejoinLater(String office, Runnable join) {
    ScheduledExecutorService polls = this.poller;
    try {
      if (polls == null) {
        throw new RejectedExecutionException("not started");
      }
      polls.execute(() -> rejoin(office, join));
    } catch (RejectedExecutionException ex) {
      this.leaving.remove(office); // stopping: the elections stop too
    }
  }

  private void rejoin(String office, Runnable join) {
    try {
      if (isRunning()) {
        join.run();
      }
    } catch (RuntimeException | Error ex) {
      // Caught: the executor would keep an Error to itself, and the office would stay out.
      logger.warn("office " + office + ": joining the election again failed", ex);
    } finally {
      this.leaving.remove(office);
    }
  }

  private void publish(CandidacyEvent event) {
    try {
      this.publisher.publishEvent(event);
    } catch (RuntimeException | Error ex) {
      logger.warn("A listener of " + event + " failed", ex);
    }
  }

  private static boolean isInElection(State state) {
    return state == State.LEADING || state == State.CAMPAIGNING || state == State.FOLLOWING;
  }
}
