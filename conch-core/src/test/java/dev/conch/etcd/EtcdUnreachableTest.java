package dev.conch.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.EtcdUnavailableException;
import dev.conch.State;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Nothing waits forever: an etcd that is not there is an error in bounded time, never a hang. */
class EtcdUnreachableTest {

  private final Etcds etcds = new Etcds();

  @AfterEach
  void close() {
    etcds.close();
  }

  private static int closedPort() throws Exception {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  @Test
  void readingTheLeaderFailsWithinTheTimeoutNamingWhatWasAsked() throws Exception {
    EtcdSession session =
        etcds.session(
            etcds.client("http://127.0.0.1:" + closedPort()),
            SessionOptions.defaults().withTimeout(Duration.ofSeconds(1)));

    assertThatThrownBy(() -> session.leader("billing"))
        .isInstanceOf(EtcdUnavailableException.class)
        .hasMessageContaining("reading the leader of office 'billing'");
  }

  @Test
  void candidateOfAnUnreachableEtcdKeepsTryingAndNeverLeads() throws Exception {
    EtcdSession session =
        etcds.session(
            etcds.client("http://127.0.0.1:" + closedPort()),
            SessionOptions.defaults().withTimeout(Duration.ofMillis(500)));
    Election election = session.election(ElectionOptions.forOffice("billing"));

    election.start();

    await().atMost(Duration.ofSeconds(10)).until(() -> election.state() == State.CAMPAIGNING);
    assertThat(election.awaitLeadership(Duration.ofSeconds(2))).isFalse();
    assertThat(session.isAlive()).isFalse();
    // And it stops promptly although etcd never answered.
    election.close();
    assertThat(election.state()).isEqualTo(State.CLOSED);
  }
}
