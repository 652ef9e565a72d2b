package dev.conch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Help, version and usage errors: no etcd is asked, so none runs here. */
class UsageIT {

  /** Nothing listens there: a usage error must be found before any connection is tried. */
  private final Conch conch = Conch.at("http://127.0.0.1:9");

  @Test
  void helpGoesToStdoutWithStatusZero() {
    Conch.Result top = conch.run("--help");
    Conch.Result elect = conch.run("elect", "--help");

    assertThat(top.status()).isZero();
    assertThat(top.stdout()).contains("Usage: conch").contains("elect");
    assertThat(elect.status()).isZero();
    assertThat(elect.stdout())
        .contains("conch elect <office> --who [--json]")
        .contains("--watch")
        .contains("--assert [--min-rev N]")
        .contains("--nonblock")
        .contains("--endpoints")
        .contains("$CONCH_PASSWORD")
        .contains(" 69   etcd unreachable");
    assertThat(elect.stderr()).isEmpty();
  }

  @Test
  void versionNamesTheBuild() {
    Conch.Result version = conch.run("--version");

    assertThat(version.status()).isZero();
    assertThat(version.stdout()).startsWith("conch 0.");
  }

  @Test
  void conchAloneIsAUsageError() {
    Conch.Result result = conch.run();

    assertThat(result.status()).isEqualTo(64);
    assertThat(result.stdout()).isEmpty();
    assertThat(result.stderr()).contains("Usage: conch");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badUsage")
  void badUsageExits64NamingTheFlagOrValue(String args, String[] named) {
    Conch.Result result = conch.run(args.split(" "));

    assertThat(result.status()).as(result.stderr()).isEqualTo(64);
    assertThat(result.stdout()).isEmpty();
    assertThat(result.stderr()).contains(named);
  }

  static Stream<Arguments> badUsage() {
    return Stream.of(
        bad("elect x --who --ttl 10x", "--ttl", "10x"),
        bad("elect x --who --ttl 1500ms", "--ttl", "whole seconds"),
        bad("elect x --who --ttl 1s", "--ttl", "at least 2s"),
        bad("elect a/b --who", "<office>", "a/b"),
        bad("elect x --who --endpoints foo", "--endpoints", "foo"),
        bad("elect x --who --endpoints http://h:1,ftp://h:2", "--endpoints", "ftp://h:2"),
        bad("elect x --who --prefix conch", "--prefix", "conch"),
        bad("elect x --who --min-rev 3", "--min-rev", "--assert"),
        bad("elect x --assert --min-rev abc", "--min-rev", "abc"),
        bad("elect x --assert --min-rev -1", "--min-rev", "-1"),
        bad("elect x", "--who", "--watch", "--assert", "--"),
        bad("elect x --who --watch", "choose one"),
        bad("elect x --who -- true", "choose one"),
        bad("elect x --who --restart", "--restart"),
        bad("elect x --watch --kill-after 1s", "--kill-after"),
        bad("elect x --wait 1s --nonblock -- true", "--wait", "--nonblock"),
        bad("elect x --wait soon -- true", "--wait", "soon"),
        bad("elect x --hook-timeout 0s -- true", "--hook-timeout"),
        bad("elect x --", "no command"),
        bad("elect x --priority abc -- true", "--priority", "'abc'", "integer"),
        bad("elect x --priority 1.5 -- true", "--priority", "'1.5'"),
        bad("elect x --min-tenure -1s -- true", "--min-tenure", "-1s"),
        bad("elect x --min-tenure soon -- true", "--min-tenure", "soon"),
        bad("elect x --who --priority 3", "--priority", "running a command"),
        bad("elect x --bogus --who", "--bogus"),
        bad("elect x echo hi", "'--'"),
        bad("elect x --kill-after 14s -- true", "--kill-after", "--ttl"), // ttl 15 s
        bad("elect x --ttl 3s -- true", "--kill-after", "--ttl"),
        bad("elect x --who --cacert /no/such/ca.pem", "--cacert", "/no/such/ca.pem"),
        bad("elect x --who --cert /etc/hostname", "--cert", "--key"),
        bad("elect x --who --password secret", "--password", "--user"),
        bad("elect --who", "<office>"),
        bad("bogus", "bogus"));
  }

  private static Arguments bad(String args, String... named) {
    return Arguments.of(args, named);
  }

  @Test
  void aMissingBuildIsReportedWithTheBuildCommand() {
    Conch.Result result = conch.env("CONCH_JAR", "/no/such/conch-cli.jar").run("--version");

    assertThat(result.status()).isEqualTo(127);
    assertThat(result.stderr()).contains("/no/such/conch-cli.jar").contains("mvn -B -ntp install");
  }
}
