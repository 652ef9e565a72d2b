package dev.conch.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.conch.ElectionOptions;
import dev.conch.InvalidArgumentException;
import dev.conch.Setting;
import dev.conch.local.LocalOffices;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** What {@link ExternalCommandRunner.Builder#build()} refuses, and the options it derives. */
class ExternalCommandRunnerBuilderTest {

  private final LocalOffices offices = new LocalOffices();

  private ExternalCommandRunner.Builder builder() {
    return ExternalCommandRunner.builder("jobs", offices::election).command(List.of("true"));
  }

  private static void refused(ExternalCommandRunner.Builder builder, String name) {
    assertThatThrownBy(builder::build)
        .isInstanceOfSatisfying(
            InvalidArgumentException.class,
            e -> {
              assertThat(e.name()).isEqualTo(name);
              assertThat(e.setting()).map(Setting::name).contains(name);
            });
  }

  @Test
  void refusesAMissingOrEmptyCommand() {
    refused(ExternalCommandRunner.builder("jobs", offices::election), "command");
    refused(builder().command(List.of()), "command");
    refused(builder().command(List.of(" ")), "command");
  }

  @Test
  void refusesAProgramThatCannotBeFound() {
    refused(builder().command(List.of("no-such-program-of-conch")), "command");
    refused(builder().command(List.of("/no/such/program")), "command");
    assertThatThrownBy(() -> builder().command(List.of("no-such-program-of-conch")).build())
        .hasMessageContaining("no-such-program-of-conch")
        .hasMessageContaining("PATH");
  }

  @Test
  void refusesBadDurationsHooksAndEnvironment() {
    refused(builder().killAfter(Duration.ZERO), "kill-after");
    refused(builder().hookTimeout(Duration.ofSeconds(-1)), "hook-timeout");
    assertThatThrownBy(builder().hookTimeout(Duration.ZERO)::build)
        .hasMessage("invalid hook-timeout '0s': a positive duration");
    assertThatThrownBy(builder().waitFor(Duration.ofSeconds(-1))::build)
        .hasMessage("invalid wait '-1s': 0 (do not wait), a positive duration, or none");
    refused(builder().waitFor(Duration.ofSeconds(-1)), "wait");
    refused(builder().onAcquire("  "), "on-acquire");
    refused(builder().onLose(""), "on-lose");
    refused(builder().environment(Map.of("CONCH_REV", "1")), "environment");
    refused(builder().environment(Map.of("A=B", "1")), "environment");
    refused(
        builder().backoff(Duration.ofSeconds(2), Duration.ofSeconds(1), Duration.ofSeconds(1)),
        "backoff-max");
    refused(
        ExternalCommandRunner.builder("a/b", offices::election).command(List.of("true")), "office");
  }

  @Test
  void electionStopsTheCommandBeforeTheLeaseCouldExpire() {
    AtomicReference<ElectionOptions> seen = new AtomicReference<>();
    ExternalCommandRunner.builder(
            "jobs",
            options -> {
              seen.set(options);
              return offices.election(options);
            })
        .killAfter(Duration.ofSeconds(3))
        .hookTimeout(Duration.ofSeconds(10))
        .electionOptions(options -> options.toBuilder().candidateId("me").build())
        .command(List.of("true"))
        .build()
        .close();

    assertThat(seen.get().candidateId()).isEqualTo("me");
    assertThat(seen.get().stopTimeout())
        .isEqualTo(Duration.ofSeconds(3).plus(ExternalCommandRunner.STOP_SLACK));
    // One lose hook call of the election covers the command's stop and the on-lose hook.
    assertThat(seen.get().hookTimeout()).isGreaterThan(Duration.ofSeconds(10 + 3 + 3));
  }
}
