package dev.conch.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.sample.SampleApps.Elected;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The sample's Spring Security setup over real HTTP: anyone may read the {@code conch} endpoint,
 * only the operator may resign or transfer an office through it.
 */
@Timeout(300)
class WriteOperationSecurityIT {

  private static final String OPERATOR = "operator";

  private static final String PASSWORD = UUID.randomUUID().toString();

  private static final String TRANSFER = "{\"action\":\"transfer\"}";

  @Test
  void transferWithoutTheOperatorsCredentialsIsRefusedAndWithThemHandsTheOfficeOver() {
    try (SampleApps apps =
        SampleApps.start("security", 2, "--spring.security.user.password=" + PASSWORD)) {
      Elected leader = apps.awaitOneLeader(SampleApps.START_TIMEOUT);
      SampleAppProcess app = leader.app();
      String path = "/actuator/conch/" + SampleAppProcess.OFFICE;

      assertThat(app.post(path, TRANSFER, null, null).status())
          .as("without credentials")
          .isEqualTo(401);
      assertThat(app.post(path, TRANSFER, OPERATOR, "wrong").status())
          .as("with a wrong password")
          .isEqualTo(401);
      assertThat(app.holds()).as("%s still holds the office", app).isTrue();
      assertThat(app.leaderStatus()).as("reads need no credentials").isEqualTo(200);

      SampleAppProcess.Answer transfer = app.post(path, TRANSFER, OPERATOR, PASSWORD);

      assertThat(transfer.status()).as("%s", transfer).isEqualTo(200);
      assertThat(transfer.body()).contains("\"action\":\"transfer\"");
      SampleAppProcess other =
          apps.running().stream().filter(running -> running != app).findFirst().orElseThrow();
      await("the office handed over to " + other)
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(100))
          .until(other::holds);
      Optional<SampleAppProcess.Leader> successor = other.leader();
      assertThat(successor).isPresent();
      assertThat(successor.get().id()).isEqualTo(other.id());
      assertThat(successor.get().token()).isGreaterThan(leader.token());
      assertThat(List.of(app.assertStatus())).containsExactly(409);
    }
  }
}
