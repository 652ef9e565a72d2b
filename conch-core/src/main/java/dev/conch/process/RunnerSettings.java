package dev.conch.process;

import dev.conch.Durations;
import dev.conch.ElectionOptions;
import dev.conch.Setting;
import dev.conch.Ticker;
import java.io.File;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongBinaryOperator;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * The checked settings of one runner, made by {@link ExternalCommandRunner.Builder} (which the
 * CLI's flags and the Spring properties fill); each value is checked by its {@link Setting} before
 * anything starts.
 *
 * @param waitFor how long to campaign before the first start; {@code null} = forever, zero = not at
 *     all
 * @param electionName the etcd election name, to export {@code ETCD_LOCK_KEY}; {@code null} = none
 * @param random draws of the back-off (inclusive bounds); {@code null} = real randomness
 * @param backoffObserver told each back-off delay (tests); {@code null} = nobody
 */
record RunnerSettings(
    String office,
    List<String> command,
    boolean restart,
    Duration killAfter,
    @Nullable String onAcquire,
    @Nullable String onLose,
    Duration hookTimeout,
    @Nullable Duration waitFor,
    Map<String, String> environment,
    @Nullable String electionName,
    Redirect input,
    Redirect output,
    Redirect error,
    Ticker ticker,
    @Nullable LongBinaryOperator random,
    Duration backoffInitial,
    Duration backoffCap,
    Duration backoffReset,
    @Nullable Consumer<Duration> backoffObserver) {

  /** The variables the runner sets itself; the extra environment may not override them. */
  static final Set<String> RESERVED = Set.of("CONCH_NAME", "CONCH_REV", "CONCH_LEASE");

  RunnerSettings {
    Setting.OFFICE.require(office);
    command = requireCommand(command, environment);
    Setting.KILL_AFTER.require(killAfter);
    Setting.RUNNER_HOOK_TIMEOUT.require(hookTimeout);
    Setting.WAIT.require(waitFor);
    Setting.ON_ACQUIRE.require(onAcquire);
    Setting.ON_LOSE.require(onLose);
    environment = requireEnvironment(environment);
    Setting.ELECTION_NAME.require(electionName);
    Setting.BACKOFF_INITIAL.require(backoffInitial);
    Setting.BACKOFF_RESET.require(backoffReset);
    if (backoffCap == null || backoffCap.compareTo(backoffInitial) < 0) {
      throw Setting.BACKOFF_MAX.invalid(
          backoffCap, "at least the initial back-off (" + Durations.format(backoffInitial) + ")");
    }
    Objects.requireNonNull(input, "input");
    Objects.requireNonNull(output, "output");
    Objects.requireNonNull(error, "error");
    Objects.requireNonNull(ticker, "ticker");
  }

  /** Whether the runner gives up at once when it cannot lead at once. */
  boolean nonblocking() {
    return waitFor != null && waitFor.isZero();
  }

  /**
   * The election options: {@code customizer}'s, with the stop timeout raised to kill-after + {@link
   * ExternalCommandRunner#STOP_SLACK} and the hook timeout raised to cover the runner's hooks and
   * stops.
   */
  ElectionOptions electionOptions(UnaryOperator<ElectionOptions> customizer) {
    Duration stop = killAfter.plus(ExternalCommandRunner.STOP_SLACK);
    // The runner's own stop is the default: the election's 1 s default for lose hooks would
    // otherwise forbid short TTLs (--ttl 2s --kill-after 100ms). A customizer may raise it.
    ElectionOptions base =
        Objects.requireNonNull(customizer, "electionOptions")
            .apply(ElectionOptions.builder(office).stopTimeout(stop).build());
    if (base == null || !base.office().equals(office)) {
      throw Setting.ELECTION_OPTIONS.invalid(
          base == null ? null : base.office(), "options for office '" + office + "'");
    }
    // One hook call of the election covers a whole stop: the command's group (kill-after, then
    // SIGKILL) and the on-lose hook (its timeout, then kill-after and SIGKILL).
    Duration hooks =
        hookTimeout
            .plus(killAfter.multipliedBy(2))
            .plus(ProcessGroup.KILL_WAIT.multipliedBy(2))
            .plusSeconds(1);
    return base.toBuilder()
        .stopTimeout(max(base.stopTimeout(), stop))
        .hookTimeout(max(base.hookTimeout(), hooks))
        .build();
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  private static List<String> requireCommand(List<String> argv, Map<String, String> environment) {
    Setting.COMMAND.require(argv);
    String program = argv.get(0);
    if (program.contains("/")) {
      Path path = Paths.get(program);
      if (!Files.isRegularFile(path) || !Files.isExecutable(path)) {
        throw Setting.COMMAND.invalid(program, "an executable file");
      }
      return List.copyOf(argv);
    }
    // The command inherits PATH (or the extra one) and is exec'd through it, as execvp does.
    String path = environment == null ? null : environment.get("PATH");
    if (path == null) {
      path = System.getenv("PATH");
    }
    if (path == null) {
      path = "/bin:/usr/bin";
    }
    for (String dir : path.split(File.pathSeparator)) {
      Path candidate = Paths.get(dir.isEmpty() ? "." : dir, program);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return List.copyOf(argv);
      }
    }
    throw Setting.COMMAND.invalid(
        program, "a program found on the PATH (" + path + ") or a path to one");
  }

  private static Map<String, String> requireEnvironment(Map<String, String> environment) {
    if (environment == null) {
      return Map.of();
    }
    for (Map.Entry<String, String> entry : environment.entrySet()) {
      String name = entry.getKey();
      if (name == null
          || name.isEmpty()
          || name.contains("=")
          || name.indexOf('\0') >= 0
          || entry.getValue() == null
          || entry.getValue().indexOf('\0') >= 0) {
        throw Setting.ENVIRONMENT.invalid(
            name + "=" + entry.getValue(), Setting.ENVIRONMENT.accepted());
      }
      if (RESERVED.contains(name)) {
        throw Setting.ENVIRONMENT.invalid(
            name, "any name but " + RESERVED + ", which the runner sets itself");
      }
    }
    return Map.copyOf(environment);
  }
}
