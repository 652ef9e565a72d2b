package dev.conch.spring.boot.test;

import dev.conch.spring.boot.test.AutoConfigureTestOffices.Replace;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;
import org.springframework.test.context.TestContextAnnotationUtils;

/**
 * Sets {@code conch.standalone=true} for a test class with {@link
 * AutoConfigureTestOffices @AutoConfigureTestOffices} that replaces the application's election (its
 * default), so that conch's auto-configuration elects in memory and never connects to etcd; with
 * {@code replace = NONE} the application's own setting stands. The property decides which
 * configuration conch's auto-configuration builds, before any bean exists: it cannot be a condition
 * on the test kit's.
 */
final class TestOfficesContextCustomizerFactory implements ContextCustomizerFactory {

  @Override
  public @Nullable ContextCustomizer createContextCustomizer(
      Class<?> testClass, List<ContextConfigurationAttributes> configAttributes) {
    AutoConfigureTestOffices annotation =
        TestContextAnnotationUtils.findMergedAnnotation(testClass, AutoConfigureTestOffices.class);
    return (annotation != null && annotation.replace() != Replace.NONE) ? new Standalone() : null;
  }

  /** Elects the offices in memory. */
  private static final class Standalone implements ContextCustomizer {

    @Override
    public void customizeContext(
        ConfigurableApplicationContext context, MergedContextConfiguration mergedConfig) {
      TestPropertyValues.of("conch.standalone=true").applyTo(context);
    }

    @Override
    public boolean equals(@Nullable Object other) {
      return other != null && other.getClass() == getClass();
    }

    @Override
    public int hashCode() {
      return getClass().hashCode();
    }
  }
}
