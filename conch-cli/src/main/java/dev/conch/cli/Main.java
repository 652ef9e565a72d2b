package dev.conch.cli;

import dev.conch.cli.logging.StderrLogging;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The entry point of {@code bin/conch}. Parses, runs one form of {@code conch elect}, and exits
 * with the status the spec gives each outcome; stderr gets one {@code conch: ...} line for each
 * failure, stdout only what the form prints.
 *
 * <p>A well-formed read form ({@code --who}, {@code --assert}, {@code --watch}) is read by {@link
 * QuickArgs} and never loads picocli; everything else (run mode, help, version, every usage error)
 * goes through picocli ({@link PicocliMain}).
 */
public final class Main {

  private Main() {}

  /** Runs {@code conch} and exits with its status. */
  public static void main(String[] args) {
    // SLF4J's provider named, so that SLF4J does not look for one in each of the ~45 jars of the
    // class path (~25 ms of a --who); its note that it was named kept off stderr.
    if (System.getProperty("slf4j.provider") == null) {
      System.setProperty("slf4j.provider", StderrLogging.class.getName());
      if (System.getProperty("slf4j.internal.verbosity") == null) {
        System.setProperty("slf4j.internal.verbosity", "WARN");
      }
    }
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
    if (dashes < 0) {
      ReadRequest read = QuickArgs.parse(args);
      if (read != null) {
        return read(read);
      }
    }
    String[] own = dashes < 0 ? args : Arrays.copyOfRange(args, 0, dashes);
    @Nullable List<String> command =
        dashes < 0 ? null : List.of(Arrays.copyOfRange(args, dashes + 1, args.length));
    return PicocliMain.run(own, command);
  }

  /** Runs a read form whose flags are checked; returns its exit status. */
  static int read(ReadRequest request) {
    StderrLogging.configure(request.quiet(), request.json());
    try {
      return ReadForms.run(request, System.out);
    } catch (Exception e) {
      return Failures.report(e, request.describeEndpoints(), request.cert() != null, null);
    }
  }
}
