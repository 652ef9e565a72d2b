package dev.conch.spring.boot.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.conch.test.EtcdExtension;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;

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

  @Test
  void testPropertiesWinAndTheEnvironmentDoesNot() {
    GenericApplicationContext context = new GenericApplicationContext();
    MutablePropertySources sources = context.getEnvironment().getPropertySources();
    sources.addFirst(new MapPropertySource("Inlined Test Properties", Map.of()));
    this.factory.createContextCustomizer(One.class, List.of()).customizeContext(context, null);
    PropertySource<?> ours = sources.get(EtcdExtensionContextCustomizer.SOURCE_NAME);
    assertThat(sources.precedenceOf(ours))
        .isGreaterThan(sources.precedenceOf(sources.get("Inlined Test Properties")))
        .isLessThan(
            sources.precedenceOf(
                sources.get(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME)))
        .isLessThan(
            sources.precedenceOf(
                sources.get(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME)));
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
