package dev.conch.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.OfficeGroup.Member;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The member key's value: what it holds, and how a value of an older version reads. */
class GroupMembershipValueTest {

  @Test
  void aValueWithoutReceivingWrittenByAnOlderVersionReadsAsReceiving() {
    assertThat(GroupMembership.parse("{\"id\":\"a\",\"priority\":1,\"leads\":3}", false))
        .hasValue(new GroupMembership.Value(new Member("a", 1, 3, false, true), List.of()));
  }

  @Test
  void whetherItReceivesAndWhomItHandsToAreReadBack() {
    String out = GroupMembership.json("b", 0, 2, false, List.of());
    assertThat(out).isEqualTo("{\"id\":\"b\",\"priority\":0,\"leads\":2,\"receiving\":false}");
    assertThat(GroupMembership.parse(out, true))
        .hasValue(new GroupMembership.Value(new Member("b", 0, 2, true, false), List.of()));

    String handing = GroupMembership.json("a", 0, 5, true, List.of("c", "b"));
    assertThat(handing).endsWith(",\"receiving\":true,\"to\":[\"c\",\"b\"]}");
    assertThat(GroupMembership.parse(handing, false).orElseThrow().to()).containsExactly("c", "b");
  }

  @Test
  void aValueThatIsNotAMemberIsSkipped() {
    assertThat(GroupMembership.parse("hand-written", false)).isEmpty();
    assertThat(GroupMembership.parse("{\"priority\":1}", false)).isEmpty();
  }
}
