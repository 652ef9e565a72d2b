package dev.conch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * {@link QuickArgs} reads a read form exactly as picocli does, or leaves it to picocli: the fast
 * path can never change what a command line means.
 */
class QuickArgsTest {

  @TempDir static Path dir;

  @BeforeAll
  static void files() throws IOException {
    Files.writeString(dir.resolve("ca.pem"), "ca");
    Files.writeString(dir.resolve("cert.pem"), "cert");
    Files.writeString(dir.resolve("key.pem"), "key");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "elect x --who",
        "elect x --who --json",
        "elect --json x --who -q",
        "elect x --assert --min-rev 42 --json",
        "elect x --assert --min-rev 0",
        "elect x --watch --quiet",
        "elect billing --who --endpoints http://127.0.0.1:2379,https://h:2379",
        "elect x --who --endpoints=http://127.0.0.1:1 --ttl=20s",
        "elect x --who --prefix /other/ --ttl 1m",
        "elect x --who --user root --password secret",
        "elect x --who --user root",
        "elect x --who --cacert DIR/ca.pem --cert DIR/cert.pem --key DIR/key.pem",
        "elect x --history",
        "elect x --history -n 1 --json",
        "elect x --history -n 1000",
        "elect x --why --json",
      })
  void takesWhatPicocliReadsTheSameWay(String line) {
    String[] args = line.replace("DIR", dir.toString()).split(" ");

    ReadRequest quick = QuickArgs.parse(args);

    assertThat(quick).isNotNull().isEqualTo(picocli(args));
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "elect x --who --ttl 1s",
        "elect x --who --ttl 10x",
        "elect x --who --who",
        "elect x --who -q --quiet",
        "elect x --who --watch",
        "elect x y --who",
        "elect x --who --min-rev 3",
        "elect x --assert --min-rev 010",
        "elect x --assert --min-rev -1",
        "elect x --who --password secret",
        "elect x --who --cert DIR/cert.pem",
        "elect x --who --cacert DIR/none.pem",
        "elect x --who --endpoints ftp://h:1",
        "elect x --who --prefix conch",
        "elect a/b --who",
        "elect x --who --bogus",
        "elect x --who -h",
        "elect x --who --json=true",
        "elect x --who --user --json",
        "elect x --restart --who",
        "elect x --history -n 0",
        "elect x --history -n 1001",
        "elect x --history -n 01",
        "elect x --why -n 3",
        "elect x --history --why",
        "elect x --who -n 3",
        "elect --help x",
        "--version",
        "elect x",
      })
  void leavesAnythingElseToPicocli(String line) {
    String[] args = line.replace("DIR", dir.toString()).split(" ");

    assertThat(QuickArgs.parse(args)).isNull();
  }

  /** What picocli and ElectCommand's checks make of the same arguments. */
  private static ReadRequest picocli(String[] args) {
    CommandLine cli = new CommandLine(new ConchCommand());
    cli.parseArgs(args);
    ElectCommand elect = cli.getSubcommands().get("elect").getCommand();
    return elect.readRequest();
  }
}
