package dev.conch.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

import dev.conch.spring.boot.autoconfigure.app.TestApplication;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * A refused conch property fails a real start, and Boot's failure analysis (what the user reads)
 * names the property, the value as it was typed, where it came from and what conch accepts.
 */
@Timeout(60)
@ExtendWith(OutputCaptureExtension.class)
class InvalidPropertyStartupTest {

  @TempDir Path dir;

  @Test
  void ttlOnTheCommandLineIsEchoedAsTyped(CapturedOutput output) {
    start("--conch.ttl=1500ms");

    assertThat(output)
        .contains("APPLICATION FAILED TO START")
        .contains("Invalid value '1500ms' for configuration property 'conch.ttl'")
        .contains("Accepted: whole seconds, at least 2s.")
        .doesNotContain("'1s500ms'");
  }

  @Test
  void stopTimeoutInAFileNamesTheFileAndLine(CapturedOutput output) throws IOException {
    Path file = this.dir.resolve("conch.properties");
    Files.writeString(file, "conch.ttl=3s\nconch.stop-timeout=2500ms\n");

    start("--spring.config.additional-location=file:" + file);

    assertThat(output)
        .contains("Invalid value '2500ms' for configuration property 'conch.stop-timeout'")
        .contains("(originating from 'URL [file:" + file + "] - 2:20')")
        .contains("must leave at least 400ms of the ttl (3s)");
  }

  @Test
  void negativeBalanceDelayIsRefusedAsTyped(CapturedOutput output) {
    start("--conch.balance.delay=-1s");

    assertThat(output)
        .contains("Invalid value '-1s' for configuration property 'conch.balance.delay'")
        .contains("Accepted: a duration of 0 or more.");
  }

  @Test
  void groupThatIsNoOfficeNameIsRefused(CapturedOutput output) {
    start("--conch.balance.group=my group");

    assertThat(output)
        .contains("Invalid value 'my group' for configuration property 'conch.balance.group'")
        .contains(
            "a group name is 1 to 128 characters without '/', whitespace or control characters");
  }

  @Test
  void priorityThatIsNoIntegerNamesThePropertyTheValueAndWhereItCameFrom(CapturedOutput output) {
    start("--conch.candidate.priority=abc");

    // Boot's own analysis of a failed binding, as for every other property of the application.
    assertThat(output)
        .contains("APPLICATION FAILED TO START")
        .contains("Failed to bind properties under 'conch.candidate.priority' to int")
        .contains("Value: \"abc\"")
        .contains("Origin: \"conch.candidate.priority\" from property source \"commandLineArgs\"")
        .contains("For input string: \"abc\"");
  }

  @Test
  void durationThatIsNoDurationSaysSo(CapturedOutput output) {
    start("--conch.candidate.min-tenure=soon");

    assertThat(output)
        .contains("Failed to bind properties under 'conch.candidate.min-tenure'")
        .contains("'soon' is not a valid duration");
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
