package dev.conch.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.conch.chaos.SoakOptions.Fault;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The soak's arguments: which faults and which supervisor settings each mode runs with. */
class SoakOptionsTest {

  private static final String LAUNCHER = "/bin/sh"; // any executable: parse only checks that

  @Test
  void benignModeRunsTheSupervisorsWithTheirDefaultsOnThreeMembersAndOnlyBenignFaults() {
    SoakOptions options = ChaosSoak.parse(new String[] {"--benign", "--launcher", LAUNCHER});

    assertThat(options.members()).isEqualTo(3);
    assertThat(options.specDefaults()).isTrue();
    assertThat(options.ttl()).isEqualTo(Duration.ofSeconds(15)); // conch elect's, since 2026-12
    assertThat(options.killAfter()).isEqualTo(Duration.ofSeconds(5));
    assertThat(options.stall()).isEqualTo(Duration.ofMillis(1500));
    assertThat(options.faults())
        .containsExactlyInAnyOrder(
            Fault.STALL_RAFT_LEADER, Fault.STALL_CLIENT_MEMBER, Fault.KILL_RAFT_LEADER);
    assertThat(options.onlyBenign()).isTrue();
  }

  @Test
  void benignModeWithAnExplicitTtlPassesTtlAndKillAfter() {
    SoakOptions options =
        ChaosSoak.parse(
            new String[] {
              "--benign", "--ttl", "2", "--kill-after-ms", "100", "--launcher", LAUNCHER
            });

    assertThat(options.specDefaults()).isFalse();
    assertThat(options.ttl()).isEqualTo(Duration.ofSeconds(2));
    assertThat(options.killAfter()).isEqualTo(Duration.ofMillis(100));
  }

  @Test
  void defaultModeKeepsItsShortTtlAndOnlyDisruptiveFaults() {
    SoakOptions options = ChaosSoak.parse(new String[] {"--members", "3", "--launcher", LAUNCHER});

    assertThat(options.specDefaults()).isFalse();
    assertThat(options.ttl()).isEqualTo(Duration.ofSeconds(3));
    assertThat(options.killAfter()).isEqualTo(Duration.ofMillis(500));
    assertThat(options.faults()).noneMatch(Fault::benign).contains(Fault.LOSE_QUORUM);
    assertThat(options.onlyBenign()).isFalse();
  }

  @Test
  void aSingleMemberBenignSoakHasNoRaftLeaderToKill() {
    SoakOptions options =
        ChaosSoak.parse(new String[] {"--benign", "--members", "1", "--launcher", LAUNCHER});

    assertThat(options.faults())
        .containsExactlyInAnyOrder(Fault.STALL_RAFT_LEADER, Fault.STALL_CLIENT_MEMBER);
  }

  @Test
  void anUnknownFaultIsRefusedWithTheKnownOnes() {
    assertThatThrownBy(
            () ->
                ChaosSoak.parse(new String[] {"--faults", "stall_leader", "--launcher", LAUNCHER}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown fault 'stall_leader'")
        .hasMessageContaining("STALL_RAFT_LEADER");
  }
}
