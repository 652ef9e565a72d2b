package dev.conch.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code conch}: the top command; its one subcommand is {@code elect}. */
@Command(
    name = "conch",
    mixinStandardHelpOptions = true,
    versionProvider = ConchCommand.Version.class,
    subcommands = ElectCommand.class,
    description = "etcd-backed leader election with fencing, for the shell.",
    footer = "%nRun 'conch elect --help' for the forms, flags and exit codes.")
final class ConchCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  /** {@code conch} alone: a usage error, the usage on stderr. */
  @Override
  public Integer call() {
    spec.commandLine().usage(System.err);
    return ExitStatus.USAGE;
  }

  /** The version from the jar's manifest (Implementation-Version). */
  static final class Version implements IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = ConchCommand.class.getPackage().getImplementationVersion();
      return new String[] {"conch " + (version == null ? "(development build)" : version)};
    }
  }
}
