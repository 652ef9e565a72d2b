package dev.conch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.test.EtcdCluster;
import dev.conch.test.EtcdExtension;
import dev.conch.test.SupervisorKills;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code conch elect} killed with SIGKILL at the worst moments of a start, on a host kept busy:
 * right after the fork, once the command's first line ran, once the on-acquire hook's first line
 * ran. Nothing it started may outlive it: not the command, not the hook, not a watchdog. {@code
 * -Dconch.orphanTries=100} for the long run.
 */
class OrphanIT {

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private static final String FIRST_LINE = "echo $$ > \"$T/pid\"; exec sleep 300";

  @TempDir Path dir;
  private String endpoints;

  @BeforeEach
  void setUp(EtcdCluster cluster) {
    endpoints = cluster.endpoints();
  }

  @ParameterizedTest
  @CsvSource({"after the fork, command", "after the first line, command", "during the hook, hook"})
  void killedConchElectLeavesNoOrphan(String point, String what) throws Exception {
    SupervisorKills.Point when =
        point.equals("after the fork")
            ? SupervisorKills.afterFork()
            : SupervisorKills.fileExists("pid");

    // A first run makes bin/conch's class-data archive, whose training JVM, forked before conch
    // starts, a kill "after the fork" would otherwise hit and count.
    assertThat(Conch.at(endpoints).run("elect", "orphan-warm-up", "--", "true").status()).isZero();

    SupervisorKills.Report report =
        SupervisorKills.hunt(SupervisorKills.tries(5), dir, attempt -> start(attempt, what), when);

    System.out.printf(
        "conch elect killed %s: %d, orphaned: %d%n", point, report.killed(), report.orphanTries());
    assertThat(report.orphans())
        .as("orphans of %d conch elect killed %s", report.killed(), point)
        .isEmpty();
  }

  private Process start(SupervisorKills.Try attempt, String what) {
    List<String> command = new ArrayList<>();
    command.add(Conch.launcher().toString());
    // An office per try: the key of a killed supervisor stays until its lease expires.
    command.addAll(
        List.of(
            "elect",
            "orphan-" + Integer.toHexString(attempt.marker().hashCode()),
            "--endpoints",
            endpoints));
    if (what.equals("hook")) {
      command.addAll(List.of("--on-acquire", FIRST_LINE, "--", "sleep", "300"));
    } else {
      command.addAll(List.of("--", "sh", "-c", FIRST_LINE));
    }
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .redirectErrorStream(true)
            .redirectOutput(attempt.dir().resolve("jvm.log").toFile());
    builder.environment().keySet().removeIf(name -> name.startsWith("CONCH_"));
    builder.environment().putAll(attempt.environment());
    builder.environment().put("T", attempt.dir().toString());
    try {
      return builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
