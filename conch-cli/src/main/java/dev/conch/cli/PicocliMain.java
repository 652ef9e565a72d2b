package dev.conch.cli;

import java.io.PrintStream;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/** Every command line that {@link QuickArgs} does not take: run mode, help, version, mistakes. */
final class PicocliMain {

  private PicocliMain() {}

  /**
   * Parses {@code own} (the words before {@code --}) with picocli and runs the command.
   *
   * @param command the words after {@code --}; {@code null} when there was no {@code --}
   */
  static int run(String[] own, @Nullable List<String> command) {
    CommandLine cli = new CommandLine(new ConchCommand());
    ElectCommand elect = Objects.requireNonNull(cli.getSubcommands().get("elect")).getCommand();
    elect.command = command;
    cli.setParameterExceptionHandler(PicocliMain::usageError);
    cli.setExecutionExceptionHandler(PicocliMain::failure);
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
    if (cli.getCommand() instanceof ElectCommand elect) {
      return Failures.report(
          e,
          elect.connection.describeEndpoints(),
          elect.connection.cert != null,
          elect.connection.ttl);
    }
    return Failures.report(e, "?", false, null);
  }
}
