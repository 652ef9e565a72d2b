package dev.conch.process;

import dev.conch.Durations;
import dev.conch.ElectionOptions;
import dev.conch.InvalidArgumentException;
import dev.conch.Offices;
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

/**
 * The checked settings of one runner; every value is refused here, naming it, before anything
 * starts.
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
    String onAcquire,
    String onLose,
    Duration hookTimeout,
    Duration waitFor,
    Map<String, String> environment,
    String electionName,
    Redirect input,
    Redirect output,
    Redirect error,
    Ticker ticker,
    LongBinaryOperator random,
    Duration backoffInitial,
    Duration backoffCap,
    Duration backoffReset,
    Consumer<Duration> backoffObserver) {

  /** The variables the runner sets itself; the extra environment may not override them. */
  static final Set<String> RESERVED = Set.of("CONCH_NAME", "CONCH_REV", "CONCH_LEASE");

  RunnerSettings {
    Offices.requireValidName(office);
    command = requireCommand(command, environment);
    requirePositive("kill-after", killAfter);
    requirePositive("hook-timeout", hookTimeout);
    if (waitFor != null && waitFor.isNegative()) {
      throw new InvalidArgumentException(
          "wait", Durations.format(waitFor), "0 (do not wait), a positive duration, or none");
    }
    requireHook("on-acquire", onAcquire);
    requireHook("on-lose", onLose);
    environment = requireEnvironment(environment);
    if (electionName != null && (!electionName.startsWith("/") || electionName.endsWith("/"))) {
      throw new InvalidArgumentException(
          "election-name", electionName, "an etcd election name such as /conch/v1/elect/billing");
    }
    requirePositive("backoff-initial", backoffInitial);
    requirePositive("backoff-reset", backoffReset);
    if (backoffCap == null || backoffCap.compareTo(backoffInitial) < 0) {
      throw new InvalidArgumentException(
          "backoff-max",
          backoffCap == null ? null : Durations.format(backoffCap),
          "at least the initial back-off (" + Durations.format(backoffInitial) + ")");
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
            .apply(ElectionOptions.forOffice(office).withStopTimeout(stop));
    if (base == null || !base.office().equals(office)) {
      throw new InvalidArgumentException(
          "election-options",
          base == null ? null : base.office(),
          "options for office '" + office + "'");
    }
    // One hook call of the election covers a whole stop: the command's group (kill-after, then
    // SIGKILL) and the on-lose hook (its timeout, then kill-after and SIGKILL).
    Duration hooks =
        hookTimeout
            .plus(killAfter.multipliedBy(2))
            .plus(ProcessGroup.KILL_WAIT.multipliedBy(2))
            .plusSeconds(1);
    return base.withStopTimeout(max(base.stopTimeout(), stop))
        .withHookTimeout(max(base.hookTimeout(), hooks));
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  private static List<String> requireCommand(List<String> argv, Map<String, String> environment) {
    String accepted = "a program and its arguments, run without a shell (e.g. [\"sleep\", \"60\"])";
    if (argv == null
        || argv.isEmpty()
        || argv.stream().anyMatch(Objects::isNull)
        || argv.get(0).isBlank()) {
      throw new InvalidArgumentException("command", argv, accepted);
    }
    String program = argv.get(0);
    if (program.contains("/")) {
      Path path = Paths.get(program);
      if (!Files.isRegularFile(path) || !Files.isExecutable(path)) {
        throw new InvalidArgumentException("command", program, "an executable file");
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
    throw new InvalidArgumentException(
        "command", program, "a program found on the PATH (" + path + ") or a path to one");
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
        throw new InvalidArgumentException(
            "environment", name + "=" + entry.getValue(), "NAME=value without '=' in the name");
      }
      if (RESERVED.contains(name)) {
        throw new InvalidArgumentException(
            "environment", name, "any name but " + RESERVED + ", which the runner sets itself");
      }
    }
    return Map.copyOf(environment);
  }

  private static void requireHook(String name, String hook) {
    if (hook != null && hook.isBlank()) {
      throw new InvalidArgumentException(name, hook, "a shell command, or none");
    }
  }

  private static void requirePositive(String name, Duration value) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new InvalidArgumentException(
          name, value == null ? null : Durations.format(value), "a positive duration");
    }
  }
}
