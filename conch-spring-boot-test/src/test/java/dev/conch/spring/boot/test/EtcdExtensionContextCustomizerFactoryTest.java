package dev.conch.spring.boot.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.conch.test.EtcdExtension;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Which static {@link EtcdExtension} fields point conch at their etcd; nothing is started here. */
@Timeout(60)
class EtcdExtensionContextCustomizerFactoryTest {

  private final EtcdExtensionContextCustomizerFactory factory =
      new EtcdExtensionContextCustomizerFactory();

  @Test
  void classWithoutAStaticFieldIsLeftAlone() {
    assertThat(this.factory.createContextCustomizer(PerTest.class, List.of())).isNull();
  }

  @Test
  void fieldOfTheEnclosingClassServesANestedClassAndTheSameContext() {
    assertThat(this.factory.createContextCustomizer(One.Inner.class, List.of()))
        .isNotNull()
        .isEqualTo(this.factory.createContextCustomizer(One.class, List.of()));
  }

  @Test
  void twoStaticFieldsAreRefusedByName() {
    assertThatIllegalStateException()
        .isThrownBy(() -> this.factory.createContextCustomizer(Two.class, List.of()))
        .withMessageContaining("[Two.first, Two.second]");
  }

  static class PerTest {
    final EtcdExtension etcd = EtcdExtension.members(1);
  }

  static class One {
    static final EtcdExtension etcd = EtcdExtension.members(1);

    @Nested
    class Inner {}
  }

  static class Two {
    static final EtcdExtension first = EtcdExtension.members(1);
    static final EtcdExtension second = EtcdExtension.members(1);
  }
}
