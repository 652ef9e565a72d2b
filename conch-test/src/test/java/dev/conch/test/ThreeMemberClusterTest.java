package dev.conch.test;

import static dev.conch.test.Commands.put;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class ThreeMemberClusterTest {

  private static final Duration ELECTION_WAIT = Duration.ofSeconds(15);

  // An instance field: each test gets a fresh cluster, so one test's damage cannot leak.
  @RegisterExtension final EtcdExtension etcd = EtcdExtension.members(3);

  @Test
  void survivesKillingTheLeader(EtcdCluster cluster) {
    assertThat(cluster.endpointList()).hasSize(3).doesNotHaveDuplicates();
    int leader = await().atMost(ELECTION_WAIT).until(cluster::leaderIndex, index -> index >= 0);

    cluster.member(leader).kill();

    String survivors = endpointsExcept(cluster, leader);
    await().atMost(ELECTION_WAIT).until(() -> put(survivors, "/t/k", "v").succeeded());
    assertThat(cluster.leaderIndex()).isNotIn(-1, leader);
  }

  @Test
  void losesQuorumWithTwoMembersDownAndRecoversWhenTheyRestart(EtcdCluster cluster) {
    String first = cluster.member(0).endpoint();
    cluster.member(1).stop();
    cluster.member(2).stop();

    Etcdctl.Result withoutQuorum = put(first, "/t/k", "v");
    assertThat(withoutQuorum.succeeded()).isFalse();
    assertThat(withoutQuorum.timedOut()).isFalse(); // etcdctl's own 1 s timeout gave up first

    cluster.member(1).start();
    cluster.member(2).start();
    cluster.awaitHealthy(ELECTION_WAIT);
    assertThat(put(cluster.endpoints(), "/t/k", "v").succeeded()).isTrue();
  }

  @Test
  void restartedMemberWithoutQuorumRunsButIsNotHealthy(EtcdCluster cluster) {
    cluster.members().forEach(EtcdMember::stop);

    cluster.member(0).start();

    assertThat(cluster.member(0).isRunning()).isTrue();
    assertThat(cluster.member(0).isHealthy()).isFalse();
    cluster.member(1).start();
    cluster.member(0).awaitHealthy(ELECTION_WAIT);
  }

  private static String endpointsExcept(EtcdCluster cluster, int excluded) {
    List<String> endpoints = cluster.endpointList();
    return IntStream.range(0, endpoints.size())
        .filter(i -> i != excluded)
        .mapToObj(endpoints::get)
        .collect(Collectors.joining(","));
  }
}
