package dev.conch.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class EtcdClusterLifecycleTest {

  @Test
  void closeLeavesNoEtcdProcessOrDirectoryBehind() {
    EtcdCluster cluster = EtcdCluster.start(3);
    List<Long> pids = cluster.members().stream().map(EtcdMember::pid).toList();
    Path dataDir = cluster.dataDir();
    cluster.member(1).pause(); // close must end a frozen member too

    cluster.close();

    for (long pid : pids) {
      assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).as("pid " + pid).isEmpty();
    }
    assertThat(dataDir).doesNotExist();
    assertThat(cluster.members()).noneMatch(EtcdMember::isRunning);
  }

  @Test
  void stopEndsAPausedMember() throws Exception {
    try (EtcdCluster cluster = EtcdCluster.start(1)) {
      EtcdMember member = cluster.member(0);
      member.pause();

      member.stop();

      assertThat(member.isRunning()).isFalse();
      assertThat(member.isPaused()).isFalse();
      assertThat(Files.readString(member.logFile())).contains("received signal; shutting down");
    }
  }

  @Test
  void reportsAPortThatEtcdCannotBind() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      String url = "http://127.0.0.1:" + taken.getLocalPort();

      assertThatThrownBy(
              () -> EtcdCluster.builder().extraArgs("--listen-client-urls=" + url).build())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("address already in use");
    }
  }

  @Test
  void rejectsClusterSizesOtherThanOneOrThree() {
    assertThatThrownBy(() -> EtcdCluster.start(2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not 2");
  }

  @Test
  void reportsTheMemberLogWhenEtcdCannotStart() {
    assertThatThrownBy(() -> EtcdCluster.builder().extraArgs("--no-such-flag").build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("conch-0")
        .hasMessageContaining("no-such-flag");
  }
}
