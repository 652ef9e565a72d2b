package dev.conch.cli;

import dev.conch.Durations;
import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.GroupOptions;
import dev.conch.InvalidArgumentException;
import dev.conch.Setting;
import dev.conch.cli.logging.StderrLogging;
import dev.conch.etcd.EtcdSession;
import dev.conch.etcd.TimingBudget;
import dev.conch.process.ExternalCommandRunner;
import io.etcd.jetcd.Client;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/** {@code conch elect}: run a command while leading an office, or look at who leads it. */
@Command(
    name = "elect",
    sortOptions = false,
    usageHelpWidth = 100,
    mixinStandardHelpOptions = true,
    versionProvider = ConchCommand.Version.class,
    customSynopsis = {
      "conch elect <office> [--ttl 15s] [--restart] [--kill-after 5s] [--on-acquire CMD]",
      "                     [--on-lose CMD] [--hook-timeout 30s] [--wait D | --nonblock]",
      "                     [--priority N] [--min-tenure 15s] [--history-terms 100] -- <cmd...>",
      "conch elect <office> --who [--json]",
      "conch elect <office> --watch [--json]",
      "conch elect <office> --assert [--min-rev N] [--json]",
      "conch elect <office> --history [-n N] [--json]",
      "conch elect <office> --why [--json]",
      "conch elect <office> --explain [--ttl 15s] [--kill-after 5s] [--hook-timeout 30s]",
      "                     [--on-lose CMD] [-- <cmd...>]",
    },
    description = {
      "Runs <cmd> only while this process leads <office> in etcd, or shows who leads it.",
      "The child gets CONCH_NAME (office), CONCH_REV (fencing token) and CONCH_LEASE (hex)."
    },
    footerHeading = "%nExit status:%n",
    footer = {
      "  0   the child's own code after a clean exit; --who: a leader; --assert: held;",
      "      --explain: printed (etcd is not asked)",
      "  1   --who: vacant; --assert: not held by this host (or below --min-rev)",
      "  3   --history, --why: the office has no recorded term (never led, or no history kept)",
      " 64   usage error (the message names the flag or value)",
      " 69   etcd unreachable",
      " 70   leadership lost while the child ran (without --restart)",
      " 75   --wait ran out (or --nonblock and the office was held)",
      "130   SIGINT, 143 SIGTERM: the child's group was stopped and the office resigned",
      "127   (bin/conch) the build or java is missing"
    })
final class ElectCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "<office>", description = "the office, e.g. billing")
  String office;

  @Option(names = "--who", description = "print the current leader; exit 1 when vacant")
  boolean who;

  @Option(names = "--watch", description = "print the leader at once and on every change")
  boolean watch;

  @Option(names = "--assert", description = "exit 0 only if this host holds the office")
  boolean assertHeld;

  @Option(
      names = "--history",
      description = "print the office's last terms: who led, when, how each ended; exit 3 if none")
  boolean history;

  @Option(
      names = "-n",
      paramLabel = "N",
      description = "with --history: the last N terms, 1 to 1000 (default: 10)")
  @Nullable Integer terms;

  @Option(
      names = "--why",
      description = "say in one sentence why the office is led as it is: its last change")
  boolean why;

  @Option(
      names = "--min-rev",
      paramLabel = "N",
      description = "with --assert: and its fencing token is at least N")
  @Nullable Long minRev;

  @Option(
      names = "--explain",
      description =
          "print what run mode promises in time with these flags (etcd outage ridden out,"
              + " fail-over, hand-over, on-lose, pauses) and exit; etcd is not asked")
  boolean explain;

  @Option(names = "--restart", description = "run the command again after it ends or is lost")
  boolean restart;

  @Option(
      names = "--kill-after",
      paramLabel = "D",
      defaultValue = "5s",
      converter = ConnectionOptions.DurationConverter.class,
      description = "SIGKILL the child's group this long after SIGTERM (default: ${DEFAULT-VALUE})")
  Duration killAfter;

  @Option(names = "--on-acquire", paramLabel = "CMD", description = "sh -c CMD on winning")
  @Nullable String onAcquire;

  @Option(names = "--on-lose", paramLabel = "CMD", description = "sh -c CMD after the child stops")
  @Nullable String onLose;

  @Option(
      names = "--hook-timeout",
      paramLabel = "D",
      defaultValue = "30s",
      converter = ConnectionOptions.DurationConverter.class,
      description = "longest a hook may run (default: ${DEFAULT-VALUE})")
  Duration hookTimeout;

  @Option(
      names = "--wait",
      paramLabel = "D",
      converter = ConnectionOptions.DurationConverter.class,
      description = "campaign at most this long, then exit 75 (default: forever)")
  @Nullable Duration waitFor;

  @Option(names = "--nonblock", description = "--wait 0: exit 75 at once if the office is held")
  boolean nonblock;

  @Option(
      names = "--priority",
      paramLabel = "N",
      defaultValue = "0",
      converter = PriorityConverter.class,
      description =
          "an integer: a leader hands the office to a live candidate of higher priority after"
              + " --min-tenure; equal priorities never move (default: ${DEFAULT-VALUE})")
  int priority;

  @Option(
      names = "--min-tenure",
      paramLabel = "D",
      defaultValue = "15s",
      converter = ConnectionOptions.DurationConverter.class,
      description =
          "a term lasts at least this long before it is handed to a higher priority"
              + " (default: ${DEFAULT-VALUE})")
  Duration minTenure;

  @Option(
      names = "--history-terms",
      paramLabel = "N",
      defaultValue = "100",
      description =
          "the office's history in etcd keeps the last N terms, 0 (none written) to 1000"
              + " (default: ${DEFAULT-VALUE})")
  int historyTerms;

  @Option(
      names = "--max-keys-per-lease",
      paramLabel = "N",
      defaultValue = "1000",
      description =
          "at most N offices' keys on one lease, 1 to 1000000; one office per process here"
              + " (default: ${DEFAULT-VALUE})")
  int maxKeysPerLease;

  @Mixin ConnectionOptions connection;

  /** The words after {@code --}, set by {@link Main}; {@code null} when there was no {@code --}. */
  @Nullable List<String> command;

  private PrintStream out = System.out;

  @Override
  public Integer call() throws InterruptedException {
    StderrLogging.configure(connection.quiet, connection.json);
    if (explain) {
      validate();
      Explanation.lines(office, timingBudget(), killAfter, hookTimeout, blankToNull(onLose))
          .forEach(out::println);
      return ExitStatus.OK;
    }
    ReadRequest read = readRequest();
    if (read != null) {
      return ReadForms.run(read, out);
    }
    Client client = connection.connect();
    EtcdSession session =
        EtcdSession.open(
            client,
            connection
                .sessionOptions()
                .withHistoryTerms(historyTerms)
                .withMaxKeysPerLease(maxKeysPerLease));
    return new RunMode(session, office, this::runner, group()).run();
  }

  /**
   * The read form these flags ask for, every value checked; {@code null} in run mode.
   *
   * @throws UsageException (or {@code InvalidArgumentException}) naming a bad flag or value
   */
  @Nullable ReadRequest readRequest() {
    return switch (validate()) {
      case WHO -> connection.readRequest(ReadRequest.Form.WHO, office, 0, 0);
      case WATCH -> connection.readRequest(ReadRequest.Form.WATCH, office, 0, 0);
      case ASSERT ->
          connection.readRequest(ReadRequest.Form.ASSERT, office, minRev == null ? 0 : minRev, 0);
      case HISTORY ->
          connection.readRequest(
              ReadRequest.Form.HISTORY,
              office,
              0,
              terms == null ? ReadRequest.DEFAULT_TERMS : terms);
      case WHY -> connection.readRequest(ReadRequest.Form.WHY, office, 0, 2);
      case RUN, EXPLAIN -> null;
    };
  }

  private enum Mode {
    WHO,
    WATCH,
    ASSERT,
    HISTORY,
    WHY,
    RUN,
    EXPLAIN
  }

  /** Checks what picocli cannot: values against each other and the chosen form. */
  private Mode validate() {
    Setting.OFFICE.require(office);
    connection.validate();
    if (explain && (who || watch || assertHeld || history || why)) {
      throw new UsageException(
          "--explain describes run mode: it goes with run mode's flags, not with --who, --watch,"
              + " --assert, --history or --why");
    }
    if (explain && connection.json) {
      throw new UsageException("--json does not apply to --explain");
    }
    int forms =
        (who ? 1 : 0)
            + (watch ? 1 : 0)
            + (assertHeld ? 1 : 0)
            + (history ? 1 : 0)
            + (why ? 1 : 0)
            + (command != null || explain ? 1 : 0);
    if (forms == 0) {
      throw new UsageException(
          "nothing to do: give --who, --watch, --assert, --history, --why, or a command after"
              + " '--'");
    }
    if (forms > 1) {
      throw new UsageException(
          "choose one of --who, --watch, --assert, --history, --why, or a command after '--'"
              + (command != null ? " (a command after '--' means run mode)" : ""));
    }
    if (terms != null && !history) {
      throw new UsageException("-n goes with --history");
    }
    if (terms != null && !ReadRequest.validTerms(terms)) {
      throw new UsageException(
          "invalid -n '" + terms + "': a number of terms from 1 to " + Setting.MAX_HISTORY_TERMS);
    }
    if (minRev != null && !assertHeld) {
      throw new UsageException("--min-rev goes with --assert");
    }
    if (minRev != null && minRev < 0) {
      throw new UsageException("invalid --min-rev '" + minRev + "': a revision, 0 or more");
    }
    if (command == null && !explain) {
      for (String flag :
          List.of(
              "--restart",
              "--kill-after",
              "--on-acquire",
              "--on-lose",
              "--hook-timeout",
              "--wait",
              "--nonblock",
              "--priority",
              "--min-tenure",
              "--history-terms")) {
        if (spec.commandLine().getParseResult().hasMatchedOption(flag)) {
          throw new UsageException(
              flag + " applies only when running a command: conch elect <office> ... -- <cmd...>");
        }
      }
      return who
          ? Mode.WHO
          : watch ? Mode.WATCH : history ? Mode.HISTORY : why ? Mode.WHY : Mode.ASSERT;
    }
    if (command != null && command.isEmpty()) {
      throw new UsageException("no command after '--'");
    }
    if (waitFor != null && nonblock) {
      throw new UsageException("--wait and --nonblock exclude each other (--nonblock is --wait 0)");
    }
    if (!Setting.HISTORY_TERMS.accepts(historyTerms)) {
      throw new UsageException(
          "invalid --history-terms '" + historyTerms + "': " + Setting.HISTORY_TERMS.accepted());
    }
    if (!Setting.KEYS_PER_LEASE.accepts(maxKeysPerLease)) {
      throw new UsageException(
          "invalid --max-keys-per-lease '"
              + maxKeysPerLease
              + "': "
              + Setting.KEYS_PER_LEASE.accepted());
    }
    if (hookTimeout.isZero()) {
      throw new UsageException("invalid --hook-timeout '0s': a positive duration");
    }
    group();
    return explain ? Mode.EXPLAIN : Mode.RUN;
  }

  /**
   * What run mode with these flags promises in time. The runner's election stops for kill-after
   * plus {@link ExternalCommandRunner#STOP_SLACK}; a kill-after that cannot fit is refused in the
   * runner's own words, as run mode refuses it before etcd is asked.
   */
  private TimingBudget timingBudget() {
    ElectionOptions options =
        ElectionOptions.builder(office)
            .stopTimeout(killAfter.plus(ExternalCommandRunner.STOP_SLACK))
            .build();
    try {
      return TimingBudget.ofRunner(
          connection.sessionOptions(),
          options,
          killAfter,
          hookTimeout,
          blankToNull(onLose) != null);
    } catch (InvalidArgumentException e) {
      if (e.setting().orElse(null) != Setting.STOP_TIMEOUT) {
        throw e;
      }
      throw Setting.KILL_AFTER.invalid(
          killAfter,
          "kill-after + "
              + Durations.format(ExternalCommandRunner.STOP_SLACK)
              + " is the election's stop timeout, which does not fit: "
              + e.accepted());
    }
  }

  /**
   * The group of run mode: the office alone, named after it, so that a leader hands it to a live
   * candidate of higher priority (and only then: one office is always within one of a fair share).
   */
  private GroupOptions group() {
    return GroupOptions.builder(office).priority(priority).minTenure(minTenure).build();
  }

  /** The runner these flags describe, its election on {@code elections}. */
  private ExternalCommandRunner.Builder runner(Function<ElectionOptions, Election> elections) {
    return ExternalCommandRunner.builder(office, elections)
        .command(List.copyOf(command))
        .restart(restart)
        .killAfter(killAfter)
        .onAcquire(blankToNull(onAcquire))
        .onLose(blankToNull(onLose))
        .hookTimeout(hookTimeout)
        .waitFor(nonblock ? Duration.ZERO : waitFor)
        .electionOptions(options -> options.toBuilder().priority(priority).build());
  }

  /** {@code --priority}: an integer, the refusal naming the value. */
  static final class PriorityConverter implements ITypeConverter<Integer> {
    @Override
    public Integer convert(String value) {
      try {
        return Integer.valueOf(value.trim());
      } catch (NumberFormatException e) {
        throw new TypeConversionException("'" + value + "' is not " + Setting.PRIORITY.accepted());
      }
    }
  }

  private static @Nullable String blankToNull(@Nullable String hook) {
    return hook == null || hook.isBlank() ? null : hook;
  }
}
