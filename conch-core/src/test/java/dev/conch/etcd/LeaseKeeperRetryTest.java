package dev.conch.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.EtcdUnavailableException;
import io.grpc.Status;
import org.junit.jupiter.api.Test;

/** Which failures of a renewal round say that etcd is electing a raft leader. */
class LeaseKeeperRetryTest {

  @Test
  void aMemberWithoutARaftLeaderOrALeaderChangeSaysEtcdIsElecting() {
    assertThat(
            LeaseKeeper.isElecting(
                new EtcdUnavailableException(
                    "lease renewal failed: etcdserver: no leader",
                    Status.UNAVAILABLE.withDescription("etcdserver: no leader").asException())))
        .isTrue();
    assertThat(
            LeaseKeeper.isElecting(
                Status.UNAVAILABLE.withDescription("etcdserver: leader changed").asException()))
        .isTrue();
  }

  @Test
  void aRefusedConnectionIsNoElection() {
    assertThat(
            LeaseKeeper.isElecting(
                new EtcdUnavailableException(
                    "lease renewal failed: connection refused",
                    Status.UNAVAILABLE.withDescription("io exception").asException())))
        .isFalse();
  }
}
