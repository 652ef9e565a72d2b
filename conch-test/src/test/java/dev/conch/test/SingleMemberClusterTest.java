package dev.conch.test;

import static dev.conch.test.Commands.get;
import static dev.conch.test.Commands.put;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class SingleMemberClusterTest {

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  @Test
  void answersEtcdctlPutAndGet(EtcdCluster cluster) {
    assertThat(put(cluster.endpoints(), "/t/greeting", "hello").succeeded()).isTrue();

    Etcdctl.Result result = get(cluster.endpoints(), "/t/greeting");

    assertThat(result.succeeded()).as(result.stderr()).isTrue();
    assertThat(result.stdout().strip()).isEqualTo("hello");
  }

  @Test
  void listensOnFreeLoopbackPortsOnly(EtcdCluster cluster) {
    EtcdMember member = cluster.member(0);

    assertThat(member.clientPort()).isNotIn(2379, 2380);
    assertThat(member.peerPort()).isNotIn(2379, 2380, member.clientPort());
    assertThat(cluster.endpoints()).isEqualTo("http://127.0.0.1:" + member.clientPort());
    assertThat(cluster.endpointList()).containsExactly(member.endpoint());
    assertThat(member.dataDir()).startsWith(cluster.dataDir());
  }

  @Test
  void writesEtcdOutputToTheMemberLogFile(EtcdCluster cluster) throws Exception {
    assertThat(Files.readString(cluster.member(0).logFile())).contains("conch-0");
  }

  @Test
  void pausedMemberAnswersNothingUntilResumed(EtcdCluster cluster) {
    EtcdMember member = cluster.member(0);
    member.pause();
    try {
      assertThat(member.isPaused()).isTrue();
      assertThat(member.isRunning()).isTrue();
      assertThat(put(cluster.endpoints(), "/t/paused", "x").succeeded()).isFalse();
    } finally {
      member.resume();
    }

    assertThat(put(cluster.endpoints(), "/t/paused", "x").succeeded()).isTrue();
  }

  @Test
  void restartedMemberKeepsItsPortsAndData(EtcdCluster cluster) {
    EtcdMember member = cluster.member(0);
    assertThat(put(cluster.endpoints(), "/t/durable", "kept").succeeded()).isTrue();
    long firstPid = member.pid();

    member.stop();
    assertThat(member.isRunning()).isFalse();
    member.start();

    assertThat(member.pid()).isNotEqualTo(firstPid);
    assertThat(member.isHealthy()).isTrue();
    assertThat(get(cluster.endpoints(), "/t/durable").stdout().strip()).isEqualTo("kept");
  }

  @Nested
  class NestedTests {

    @Test
    void shareTheEnclosingClassCluster(EtcdCluster cluster) {
      assertThat(cluster).isSameAs(etcd.cluster());
      assertThat(cluster.member(0).isRunning()).isTrue();
    }
  }
}
