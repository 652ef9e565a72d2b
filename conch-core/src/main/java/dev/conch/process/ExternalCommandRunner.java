package dev.conch.process;

import dev.conch.Durations;
import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.InvalidArgumentException;
import dev.conch.Setting;
import dev.conch.Ticker;
import java.io.File;
import java.lang.ProcessBuilder.Redirect;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongBinaryOperator;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * Runs a command only while this candidate leads an office: {@code conch elect ... -- cmd} and the
 * {@code ExternalCommandRunner} bean.
 *
 * <p>On winning it runs the on-acquire hook, then the command in a process group of its own with
 * {@code CONCH_NAME}, {@code CONCH_REV} (the fencing token) and {@code CONCH_LEASE} in its
 * environment; when leadership ends, the group is stopped (SIGTERM, SIGKILL after kill-after)
 * before the lease could expire, then the on-lose hook runs. Its results are {@link ExitCodes}.
 * What it does in every case (the SIGTERM grace, a command that exits, restart and back-off, a
 * failing hook, the wait) is described once, in the repository's {@code docs/runner.md}.
 */
public final class ExternalCommandRunner implements AutoCloseable {

  /**
   * The lease TTL {@code conch elect} uses when none is given: 15 s. With the default kill-after (5
   * s) the lease has 9 s to be renewed in before the command must be stopped, and rides out an etcd
   * raft leader change ({@link dev.conch.etcd.TimingBudget#RAFT_LEADER_CHANGE}); the 10 s of an
   * application's own elections would leave 4 s, not enough for one. A crashed supervisor's office
   * is free again after at most 15.5 s.
   */
  public static final Duration DEFAULT_TTL = Duration.ofSeconds(15);

  /** Default {@link Builder#killAfter}: 5 s. */
  public static final Duration DEFAULT_KILL_AFTER =
      Objects.requireNonNull(Setting.KILL_AFTER.defaultValue());

  /** Default {@link Builder#hookTimeout}: 30 s. */
  public static final Duration DEFAULT_HOOK_TIMEOUT =
      Objects.requireNonNull(Setting.RUNNER_HOOK_TIMEOUT.defaultValue());

  /** Default first back-off delay before campaigning again: 1 s. */
  public static final Duration DEFAULT_BACKOFF_INITIAL =
      Objects.requireNonNull(Setting.BACKOFF_INITIAL.defaultValue());

  /** Default longest back-off delay: 30 s. */
  public static final Duration DEFAULT_BACKOFF_MAX =
      Objects.requireNonNull(Setting.BACKOFF_MAX.defaultValue());

  /** Default life of a command after which the back-off starts again from its first delay: 60 s. */
  public static final Duration DEFAULT_BACKOFF_RESET =
      Objects.requireNonNull(Setting.BACKOFF_RESET.defaultValue());

  /**
   * Added to kill-after to give the election's stop timeout: time to start the stop and send
   * SIGKILL. The election drops leadership that long (plus its safety margin) before the lease
   * deadline, so the command is dead before any successor could start.
   */
  public static final Duration STOP_SLACK = Duration.ofMillis(500);

  /**
   * How long a stop waits after SIGKILL for a process group to be gone before it reports what still
   * runs and goes on: 2 s. A group is gone within milliseconds of SIGKILL unless one of its
   * processes is in uninterruptible sleep (a hung NFS mount, a device); a graceful hand-over may
   * take that long more per group stopped (the command's, the on-lose hook's).
   */
  public static final Duration KILL_WAIT = ProcessGroup.KILL_WAIT;

  private final RunnerLifecycle supervisor;

  private ExternalCommandRunner(RunnerLifecycle supervisor) {
    this.supervisor = supervisor;
  }

  /**
   * A builder for a runner on {@code office}, whose election {@code elections} creates from the
   * options the runner computes (e.g. {@code session::election} or {@code offices::election}).
   */
  public static Builder builder(String office, Function<ElectionOptions, Election> elections) {
    return new Builder(office, elections);
  }

  /**
   * Joins the election and returns at once; the runner works on a thread of its own.
   *
   * @throws IllegalStateException when already started or stopped
   */
  public void start() {
    supervisor.start();
  }

  /**
   * Waits until the runner finishes and returns its result: the command's exit code, or one of
   * {@link ExitCodes}. With restart it finishes only when stopped.
   *
   * @throws IllegalStateException when neither started nor stopped
   */
  public int awaitExit() throws InterruptedException {
    while (true) {
      OptionalInt result = supervisor.awaitExit(Duration.ofSeconds(1));
      if (result.isPresent()) {
        return result.getAsInt();
      }
    }
  }

  /**
   * Waits at most {@code timeout} for the runner to finish.
   *
   * @return its result, or empty when it still runs
   * @throws IllegalStateException when neither started nor stopped
   */
  public OptionalInt awaitExit(Duration timeout) throws InterruptedException {
    return supervisor.awaitExit(timeout);
  }

  /**
   * Stops the runner as a loss would (the command's group gets SIGTERM, then SIGKILL after
   * kill-after; on-lose runs), then resigns so the next candidate leads at once. The result is then
   * {@link ExitCodes#STOPPED}, unless the runner had already finished. Idempotent; returns when
   * done, bounded by the kill-after and hook timeouts.
   */
  public void stop() {
    supervisor.stop();
  }

  /** The pid of the command (also its process group id) while it runs. */
  public Optional<Long> childPid() {
    return supervisor.childPid();
  }

  /** Stops the runner ({@link #stop()}) and closes its election. */
  @Override
  public void close() {
    supervisor.stop();
  }

  /**
   * Settings of a runner, each a {@link Setting} (name, default, check); {@link #build()} checks
   * them all.
   */
  public static final class Builder {

    private final String office;
    private final Function<ElectionOptions, Election> elections;
    private List<String> command = List.of(); // none: refused by build()
    private boolean restart = Objects.requireNonNull(Setting.RESTART.defaultValue());
    private Duration killAfter = DEFAULT_KILL_AFTER;
    private @Nullable String onAcquire = Setting.ON_ACQUIRE.defaultValue();
    private @Nullable String onLose = Setting.ON_LOSE.defaultValue();
    private Duration hookTimeout = DEFAULT_HOOK_TIMEOUT;
    private @Nullable Duration waitFor = Setting.WAIT.defaultValue();
    private UnaryOperator<ElectionOptions> customizer =
        Objects.requireNonNull(Setting.ELECTION_OPTIONS.defaultValue());
    private Map<String, String> environment =
        Objects.requireNonNull(Setting.ENVIRONMENT.defaultValue());
    private @Nullable String electionName = Setting.ELECTION_NAME.defaultValue();
    private Redirect input = Redirect.from(new File("/dev/null"));
    private Redirect output = Redirect.INHERIT;
    private Redirect error = Redirect.INHERIT;
    private Ticker ticker = Ticker.SYSTEM;
    private @Nullable LongBinaryOperator random;
    private Duration backoffInitial = DEFAULT_BACKOFF_INITIAL;
    private Duration backoffMax = DEFAULT_BACKOFF_MAX;
    private Duration backoffReset = DEFAULT_BACKOFF_RESET;
    private @Nullable Consumer<Duration> backoffObserver;

    private Builder(String office, Function<ElectionOptions, Election> elections) {
      this.office = office;
      this.elections = elections;
    }

    /** The command and its arguments (required): exec'd directly, no shell, in its own group. */
    public Builder command(List<String> argv) {
      this.command = argv;
      return this;
    }

    /** Whether to campaign and run the command again after it ends or leadership is lost. */
    public Builder restart(boolean restart) {
      this.restart = restart;
      return this;
    }

    /** How long the command's group may take to exit after SIGTERM before SIGKILL (5 s). */
    public Builder killAfter(Duration killAfter) {
      this.killAfter = killAfter;
      return this;
    }

    /** A shell command ({@code sh -c}) run on winning, before the command; none by default. */
    public Builder onAcquire(@Nullable String shellCommand) {
      this.onAcquire = shellCommand;
      return this;
    }

    /** A shell command ({@code sh -c}) run after the command stopped; none by default. */
    public Builder onLose(@Nullable String shellCommand) {
      this.onLose = shellCommand;
      return this;
    }

    /** How long each hook may run before its group is stopped (30 s). */
    public Builder hookTimeout(Duration hookTimeout) {
      this.hookTimeout = hookTimeout;
      return this;
    }

    /**
     * How long to campaign before the command first starts: {@code null} (the default) waits
     * forever, {@link Duration#ZERO} gives up at once when another candidate leads.
     */
    public Builder waitFor(@Nullable Duration waitFor) {
      this.waitFor = waitFor;
      return this;
    }

    /**
     * Adjusts the election options (candidate id, gate, ...). The runner raises the stop timeout to
     * kill-after + {@link #STOP_SLACK} and the hook timeout to cover its hooks and stops.
     */
    public Builder electionOptions(UnaryOperator<ElectionOptions> customizer) {
      this.customizer = customizer;
      return this;
    }

    /** Variables added to the parent's environment for the command and hooks. */
    public Builder environment(Map<String, String> extra) {
      this.environment = extra;
      return this;
    }

    /**
     * The etcd election name ({@code prefix + office}), so that {@code ETCD_LOCK_KEY} can be set to
     * the leader's key as {@code etcdctl lock} does; not set by default.
     */
    public Builder electionName(@Nullable String name) {
      this.electionName = name;
      return this;
    }

    /** Where the command's and hooks' standard output goes (passed through by default). */
    public Builder redirectOutput(Redirect output) {
      this.output = output;
      return this;
    }

    /** Where the command's and hooks' standard error goes (passed through by default). */
    public Builder redirectError(Redirect error) {
      this.error = error;
      return this;
    }

    /** Where the command reads standard input from ({@code /dev/null} by default). */
    public Builder redirectInput(Redirect input) {
      this.input = input;
      return this;
    }

    /** The clock that measures how long a command lived, for the back-off reset (tests). */
    public Builder ticker(Ticker ticker) {
      this.ticker = ticker;
      return this;
    }

    /** The random draws of the back-off, inclusive bounds in nanoseconds (tests). */
    public Builder random(LongBinaryOperator random) {
      this.random = random;
      return this;
    }

    /** The back-off: first delay, largest delay, and the life that resets it (1 s, 30 s, 60 s). */
    public Builder backoff(Duration initial, Duration max, Duration resetAfter) {
      this.backoffInitial = initial;
      this.backoffMax = max;
      this.backoffReset = resetAfter;
      return this;
    }

    /** Told each back-off delay as it is chosen (tests). */
    Builder backoffObserver(Consumer<Duration> observer) {
      this.backoffObserver = observer;
      return this;
    }

    /**
     * Checks every setting and creates the election (nothing runs before {@link #start()}).
     *
     * @throws InvalidArgumentException naming the setting, the value and what is accepted; also
     *     when kill-after cannot fit before the lease deadline of the election's session
     */
    public ExternalCommandRunner build() {
      RunnerSettings settings =
          new RunnerSettings(
              office,
              command,
              restart,
              killAfter,
              onAcquire,
              onLose,
              hookTimeout,
              waitFor,
              environment,
              electionName,
              input,
              output,
              error,
              ticker,
              random,
              backoffInitial,
              backoffMax,
              backoffReset,
              backoffObserver);
      Objects.requireNonNull(elections, "elections");
      ElectionOptions options = settings.electionOptions(customizer);
      Election election;
      try {
        election = Objects.requireNonNull(elections.apply(options), "elections returned null");
      } catch (InvalidArgumentException e) {
        if (e.isRenamed() || e.setting().orElse(null) != Setting.STOP_TIMEOUT) {
          throw e;
        }
        throw Setting.KILL_AFTER.invalid(
            settings.killAfter(),
            "kill-after + "
                + Durations.format(STOP_SLACK)
                + " is the election's stop timeout, which does not fit: "
                + e.accepted());
      }
      return new ExternalCommandRunner(new RunnerLifecycle(settings, options, election));
    }
  }
}
