package dev.conch.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.Holder;
import dev.conch.State;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** An office held vacant: its candidates campaign, none wins until it is granted or reopened. */
@Timeout(60)
class LocalOfficesHoldVacantTest {

  private final LocalOffices offices = new LocalOffices();

  private final Election me =
      this.offices.election(ElectionOptions.builder("jobs").candidateId("me").build());

  private final Election other =
      this.offices.election(ElectionOptions.builder("jobs").candidateId("other").build());

  @AfterEach
  void close() {
    this.me.close();
    this.other.close();
  }

  @Test
  void revokedLeaderDoesNotWinAgainUntilGranted() throws InterruptedException {
    long first = lead(this.me);
    this.offices.holdVacant("jobs");
    this.offices.revoke("jobs");
    // Alone in the office it campaigns again at once; held vacant, it must not win.
    await()
        .during(Duration.ofSeconds(1))
        .atMost(Duration.ofSeconds(5))
        .until(() -> !this.me.isLeader() && this.me.state() == State.CAMPAIGNING);
    assertThat(this.offices.leader("jobs")).isEmpty();
    assertThat(this.offices.grant("jobs", "me")).isTrue();
    assertThat(this.me.awaitLeadership(Duration.ofSeconds(10))).isTrue();
    assertThat(this.me.token().orElseThrow()).isGreaterThan(first);
    assertThat(this.offices.leader("jobs").map(Holder::id)).contains("me");
  }

  @Test
  void reopenLetsTheFirstWaitingCandidateWin() throws InterruptedException {
    lead(this.me);
    this.other.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> this.other.state() == State.FOLLOWING);
    this.offices.holdVacant("jobs");
    this.offices.expire("jobs");
    await().atMost(Duration.ofSeconds(10)).until(() -> !this.me.isLeader());
    assertThat(this.other.isLeader()).isFalse();
    assertThat(this.offices.leader("jobs")).isEmpty();
    this.offices.reopen("jobs");
    assertThat(this.other.awaitLeadership(Duration.ofSeconds(10))).isTrue();
  }

  private static long lead(Election election) throws InterruptedException {
    election.start();
    assertThat(election.awaitLeadership(Duration.ofSeconds(10))).isTrue();
    return election.token().orElseThrow();
  }
}
