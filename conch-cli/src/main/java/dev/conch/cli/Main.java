package dev.conch.cli;

import dev.conch.Durations;
import dev.conch.EtcdUnavailableException;
import dev.conch.InvalidArgumentException;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The entry point of {@code bin/conch}. Parses, runs one form of {@code conch elect}, and exits
 * with the status the spec gives each outcome; stderr gets one {@code conch: ...} line for each
 * failure, stdout only what the form prints.
 */
public final class Main {

  /** How the core names a setting in {@link InvalidArgumentException}, and the flag behind it. */
  private static final Map<String, String> FLAGS =
      Map.of(
          "office", "<office>",
          "ttl", "--ttl",
          "prefix", "--prefix",
          "endpoint", "--endpoints",
          "endpoints", "--endpoints",
          "stop-timeout", "--kill-after",
          "kill-after", "--kill-after",
          "hook-timeout", "--hook-timeout");

  /** How etcd words a refused login: 69 like any other refusal, with a hint. */
  private static final Pattern AUTH_FAILURE =
      Pattern.compile("UNAUTHENTICATED|authentication failed|user name is empty|permission denied");

  private Main() {}

  /** Runs {@code conch} and exits with its status. */
  public static void main(String[] args) {
    int status = run(args);
    System.out.flush();
    // The jetcd client keeps non-daemon threads; there is nothing left worth waiting for.
    System.exit(status);
  }

  /** Runs {@code conch} and returns its exit status. */
  static int run(String[] args) {
    // Everything after the first "--" is the child's argv, untouched: picocli never sees it, so a
    // child's own flags ("ls -l") cannot be taken for conch's.
    int dashes = Arrays.asList(args).indexOf("--");
    String[] own = dashes < 0 ? args : Arrays.copyOfRange(args, 0, dashes);
    CommandLine cli = new CommandLine(new ConchCommand());
    ElectCommand elect = cli.getSubcommands().get("elect").getCommand();
    elect.command = dashes < 0 ? null : List.of(Arrays.copyOfRange(args, dashes + 1, args.length));
    cli.setParameterExceptionHandler(Main::usageError);
    cli.setExecutionExceptionHandler(Main::failure);
    return cli.execute(own);
  }

  private static int usageError(ParameterException e, String[] args) {
    PrintStream err = System.err;
    err.println("conch: " + e.getMessage());
    UnmatchedArgumentException.printSuggestions(e, err);
    if (e instanceof UnmatchedArgumentException unmatched
        && !unmatched.getUnmatched().isEmpty()
        && !unmatched.getUnmatched().get(0).startsWith("-")) {
      err.println("conch: a command goes after '--': conch elect <office> [flags] -- <cmd...>");
    }
    err.println("Try '" + e.getCommandLine().getCommandSpec().qualifiedName() + " --help'.");
    return ExitStatus.USAGE;
  }

  private static int failure(Exception e, CommandLine cli, ParseResult parsed) {
    PrintStream err = System.err;
    if (e instanceof UsageException) {
      err.println("conch: " + e.getMessage());
      return ExitStatus.USAGE;
    }
    if (e instanceof InvalidArgumentException invalid) {
      String flag = FLAGS.getOrDefault(invalid.name(), invalid.name());
      String with =
          flag.equals("--kill-after") && cli.getCommand() instanceof ElectCommand elect
              ? " with --ttl " + Durations.format(elect.connection.ttl)
              : "";
      err.println(
          "conch: invalid "
              + flag
              + " '"
              + invalid.value()
              + "'"
              + with
              + ": "
              + invalid.accepted());
      return ExitStatus.USAGE;
    }
    if (e instanceof EtcdUnavailableException) {
      String endpoints =
          cli.getCommand() instanceof ElectCommand elect
              ? elect.connection.describeEndpoints()
              : "?";
      String message = e.getMessage();
      String hint =
          message != null && AUTH_FAILURE.matcher(message).find()
              ? " (check --user, and --password or $CONCH_PASSWORD)"
              : "";
      err.println("conch: etcd unavailable at " + endpoints + ": " + message + hint);
      return ExitStatus.UNAVAILABLE;
    }
    if (e instanceof InterruptedException) {
      return ExitStatus.INTERRUPTED;
    }
    err.println("conch: " + e.getMessage());
    if (System.getenv("CONCH_LOG") != null) {
      e.printStackTrace(err);
    }
    return ExitStatus.LOST;
  }
}
