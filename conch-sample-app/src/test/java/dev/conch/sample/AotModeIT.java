package dev.conch.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.sample.SampleApps.Elected;
import dev.conch.sample.SampleApps.HandOver;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The jar run from the code {@code spring-boot:process-aot} generated into it ({@code
 * -Dspring.aot.enabled=true}), as a native image would run it: the office is the one given on the
 * command line, not the one the build saw, the {@code @OnLeadership} methods run, the endpoint
 * answers, and a SIGTERM still hands over at once.
 */
@Timeout(300)
class AotModeIT {

  private static final List<String> AOT = List.of("-Dspring.aot.enabled=true");

  @Test
  void aotProcessedAppElectsOneLeaderRunsItsHooksAndAnswersOnTheEndpoint() throws Exception {
    try (SampleApps apps = SampleApps.start("aot", 2, AOT, "--conch.ttl=30s")) {
      for (SampleAppProcess app : apps.running()) {
        assertThat(app.log()).as("log of %s", app).contains("Starting AOT-processed");
      }
      Elected first = apps.awaitOneLeader(SampleApps.START_TIMEOUT);
      await("the acquire hook of " + first.app())
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(100))
          .until(
              () ->
                  first
                      .app()
                      .log()
                      .contains(
                          "Leading office "
                              + SampleAppProcess.OFFICE
                              + " with token "
                              + first.token()));
      assertThat(first.app().claims()).isTrue();
      assertThat(first.app().conchHealth()).contains("UP");

      HandOver handOver =
          apps.stopLeader(first, SampleAppProcess::terminate, Duration.ofSeconds(30));

      Figures.record(handOver.describe("graceful in AOT mode (SIGTERM, ttl 30s)"));
      assertThat(handOver.to().token()).isGreaterThan(first.token());
      assertThat(first.app().log())
          .as("the lose hook of %s", first.app())
          .contains("No longer leading office " + SampleAppProcess.OFFICE);
    }
  }

  @Test
  void officeComesFromTheEnvironmentTheAppRunsWithNotTheBuilds() {
    try (SampleApps apps =
        SampleApps.start(
            "aot-office", 1, AOT, "--conch.office=" + SampleAppProcess.OFFICE + "-2")) {
      SampleAppProcess app = apps.running().get(0);
      String office = SampleAppProcess.OFFICE + "-2";
      await("leadership of " + office)
          .atMost(SampleApps.START_TIMEOUT)
          .pollInterval(Duration.ofMillis(100))
          .until(() -> app.get("/actuator/conch/" + office + "/assert").status() == 200);
      assertThat(app.get("/actuator/conch").body())
          .contains("\"office\":\"" + office + "\"")
          .doesNotContain("\"office\":\"" + SampleAppProcess.OFFICE + "\"");
      assertThat(app.log()).contains("Leading office " + office + " with token");
    }
  }
}
