package dev.conch;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class HolderTest {

  private final Holder holder =
      Holder.of("billing", "host-1", 42, Instant.parse("2026-11-29T10:00:00Z"), "host-1:42");

  @Test
  void storedValueIsTheHolderJsonOfTheDesign() {
    assertThat(holder.toValueJson())
        .isEqualTo(
            "{\"office\":\"billing\",\"host\":\"host-1\",\"pid\":42,"
                + "\"since\":\"2026-11-29T10:00:00Z\",\"id\":\"host-1:42\"}");
  }

  @Test
  void viewAddsRevAndLeaseInHex() {
    assertThat(holder.at(17, 0x694d77d1e2a3b40cL).toJson())
        .endsWith(",\"id\":\"host-1:42\",\"rev\":17,\"lease\":\"694d77d1e2a3b40c\"}");
  }

  @Test
  void storedValueReadsBack() {
    Holder read = Holder.parse("billing", holder.toValueJson(), 17, 255);
    assertThat(read).isEqualTo(holder.at(17, 255));
    assertThat(read.isConch()).isTrue();
  }

  @Test
  void valueOfAnotherToolIsKeptRawNotAnError() {
    Holder read = Holder.parse("billing", "etcdctl-proposal", 9, 1);
    assertThat(read.isConch()).isFalse();
    assertThat(read.raw()).isEqualTo("etcdctl-proposal");
    assertThat(read.toJson())
        .isEqualTo(
            "{\"office\":\"billing\",\"value\":\"etcdctl-proposal\",\"rev\":9,\"lease\":\"1\"}");
    assertThat(Holder.parse("billing", "{\"host\":1}", 9, 1).isConch()).isFalse();
    assertThat(Holder.parse("billing", "", 9, 1).isConch()).isFalse();
  }

  @Test
  void priorityIsStoredOnlyWhenNotZeroAndReadsBack() {
    assertThat(holder.toValueJson()).doesNotContain("priority");
    Holder preferred = holder.withPriority(5);
    assertThat(preferred.toValueJson()).endsWith(",\"id\":\"host-1:42\",\"priority\":5}");
    Holder read = Holder.parse("billing", preferred.toValueJson(), 17, 255);
    assertThat(read.priority()).isEqualTo(5);
    assertThat(read).isEqualTo(preferred.at(17, 255));
    assertThat(Holder.parse("billing", holder.toValueJson(), 17, 255).priority()).isZero();
  }
}
