package dev.conch.spring.boot.test;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.local.LocalOffices;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/** The standalone mode's warning is for applications that run with it, not for the test kit. */
@ExtendWith(OutputCaptureExtension.class)
@Timeout(60)
class StandaloneWarningTest {

  private static final String WARNING = "offices are elected IN MEMORY";

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withPropertyValues("conch.standalone=true", "conch.office=shop");

  @Test
  void testKitLogsNoStandaloneWarning(CapturedOutput output) {
    this.runner
        .withConfiguration(
            AutoConfigurations.of(TestOfficesAutoConfiguration.class, ConchAutoConfiguration.class))
        .run(context -> assertThat(context).hasSingleBean(TestOffices.class));
    assertThat(output).doesNotContain(WARNING);
  }

  @Test
  void testKitThatReplacesNothingKeepsTheApplicationsOwnStandaloneOffices(CapturedOutput output) {
    this.runner
        .withPropertyValues("conch.test.offices.replace=NONE")
        .withConfiguration(
            AutoConfigurations.of(TestOfficesAutoConfiguration.class, ConchAutoConfiguration.class))
        .run(
            context -> {
              assertThat(context).doesNotHaveBean(TestOffices.class);
              assertThat(context).hasSingleBean(LocalOffices.class);
            });
    assertThat(output).contains(WARNING);
  }

  @Test
  void applicationInStandaloneModeIsWarned(CapturedOutput output) {
    this.runner
        .withConfiguration(AutoConfigurations.of(ConchAutoConfiguration.class))
        .run(context -> assertThat(context).hasNotFailed());
    assertThat(output).contains(WARNING);
  }
}
