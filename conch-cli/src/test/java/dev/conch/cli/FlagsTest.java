package dev.conch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.Durations;
import dev.conch.Setting;
import dev.conch.etcd.SessionOptions;
import dev.conch.process.ExternalCommandRunner;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The flags of {@code conch elect} are the core's settings: each flag a refusal is reported against
 * exists, and each default is the setting's.
 */
class FlagsTest {

  private final CommandSpec elect =
      new CommandLine(new ConchCommand()).getSubcommands().get("elect").getCommandSpec();

  @Test
  void everyFlagThatNamesARefusedSettingExists() {
    for (Map.Entry<Setting<?>, String> flag : Failures.FLAGS.entrySet()) {
      if (flag.getKey() == Setting.OFFICE) {
        assertThat(elect.positionalParameters().get(0).paramLabel()).isEqualTo(flag.getValue());
      } else {
        assertThat(elect.findOption(flag.getValue())).as(flag.getKey().name()).isNotNull();
      }
    }
  }

  @Test
  void flagDefaultsAreTheSettingsDefaults() {
    assertThat(defaultOf("--ttl")).isEqualTo(ExternalCommandRunner.DEFAULT_TTL);
    assertThat(defaultOf("--kill-after")).isEqualTo(Setting.KILL_AFTER.defaultValue());
    assertThat(defaultOf("--hook-timeout")).isEqualTo(Setting.RUNNER_HOOK_TIMEOUT.defaultValue());
    assertThat(elect.findOption("--prefix").defaultValue())
        .isEqualTo(Setting.PREFIX.defaultValue())
        .isEqualTo(SessionOptions.DEFAULT_PREFIX);
    assertThat(defaultOf("--min-tenure")).isEqualTo(Setting.MIN_TENURE.defaultValue());
    assertThat(Integer.valueOf(elect.findOption("--priority").defaultValue()))
        .isEqualTo(Setting.PRIORITY.defaultValue());
    assertThat(elect.findOption("--wait").defaultValue()).isNull();
    assertThat(Setting.WAIT.defaultValue()).isNull();
  }

  @Test
  void aRefusedSettingIsNamedByItsFlagElseByItsName() {
    assertThat(Failures.flag(Setting.STOP_TIMEOUT.invalid(Duration.ofSeconds(9), "fits")))
        .isEqualTo("--kill-after");
    assertThat(Failures.flag(Setting.ENDPOINT.invalid("x", "a URL"))).isEqualTo("--endpoints");
    assertThat(Failures.flag(Setting.COMMAND.invalid("nosuch", "on the PATH")))
        .isEqualTo("command");
  }

  private Duration defaultOf(String flag) {
    OptionSpec option = elect.findOption(flag);
    return Durations.parse(flag, option.defaultValue());
  }
}
