package dev.conch.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

import dev.conch.spring.boot.autoconfigure.app.TestApplication;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * A bad {@code require-health} or {@code quarantine} fails a real start, and the failure analysis
 * names the property, the value and what is accepted: for an unknown indicator, the names there
 * are.
 */
@Timeout(60)
@ExtendWith(OutputCaptureExtension.class)
class RequireHealthStartupTest {

  @Test
  void unknownIndicatorNamesThePropertyAndTheKnownContributorsAndGroups(CapturedOutput output) {
    start(
        "--conch.offices.app.require-health=dbx",
        "--management.endpoint.health.group.custom.include=diskSpace");

    assertThat(output)
        .contains("APPLICATION FAILED TO START")
        .contains("Invalid value 'dbx' for 'conch.offices.app.require-health'.")
        .contains("Accepted: the name of a health contributor (")
        .contains("diskSpace")
        .contains("or of a health group (custom")
        .doesNotContain("conchLeader");
  }

  @Test
  void defaultRequirementNamesItsOwnProperty(CapturedOutput output) {
    start("--conch.health.require=nosuch");

    assertThat(output).contains("Invalid value 'nosuch' for 'conch.health.require'.");
  }

  @Test
  void deprecatedDefaultRequirementNamesTheKeyTheUserWrote(CapturedOutput output) {
    start("--conch.require-health=nosuch");

    assertThat(output).contains("Invalid value 'nosuch' for 'conch.require-health'.");
  }

  @Test
  void negativeQuarantineIsEchoedAsTyped(CapturedOutput output) {
    start("--conch.offices.app.require-health=diskSpace", "--conch.offices.app.quarantine=-5s");

    assertThat(output)
        .contains("Invalid value '-5s' for configuration property 'conch.offices.app.quarantine'")
        .contains("Accepted: a duration of zero or more, e.g. 10s.");
  }

  private static void start(String... args) {
    SpringApplicationBuilder application =
        new SpringApplicationBuilder(TestApplication.class)
            .web(WebApplicationType.NONE)
            .properties(
                "spring.main.banner-mode=off",
                "spring.application.name=app",
                "conch.etcd.endpoints=http://127.0.0.1:1",
                "conch.etcd.timeout=1s");
    assertThatException().isThrownBy(() -> application.run(args).close());
  }
}
