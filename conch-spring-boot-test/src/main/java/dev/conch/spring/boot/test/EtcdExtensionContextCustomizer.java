package dev.conch.spring.boot.test;

import dev.conch.test.EtcdExtension;
import java.lang.reflect.Field;
import java.util.Map;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.MergedContextConfiguration;
import org.springframework.util.ReflectionUtils;

/**
 * Sets {@code conch.etcd.endpoints} from one static {@link EtcdExtension} field, read when the
 * property is (the extension starts its cluster before the context loads). The test's own
 * properties ({@code @SpringBootTest(properties)}, {@code @TestPropertySource},
 * {@code @DynamicPropertySource}) still win; system properties, the environment and the
 * application's files do not, so an endpoint configured for development never reaches a test's
 * etcd.
 *
 * <p>Equal for the same field, so that the tests of a class share one cached context.
 */
final class EtcdExtensionContextCustomizer implements ContextCustomizer {

  static final String PROPERTY = "conch.etcd.endpoints";

  static final String SOURCE_NAME = "conchEtcdExtension";

  private final Field field;

  EtcdExtensionContextCustomizer(Field field) {
    this.field = field;
  }

  @Override
  public void customizeContext(
      ConfigurableApplicationContext context, MergedContextConfiguration mergedConfig) {
    EtcdExtension extension = extension();
    ConfigurableEnvironment environment = context.getEnvironment();
    MutablePropertySources sources = environment.getPropertySources();
    PropertySource<?> source = new EndpointsPropertySource(() -> extension.cluster().endpoints());
    if (sources.contains(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME)) {
      sources.addBefore(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME, source);
    } else {
      sources.addLast(source);
    }
  }

  private EtcdExtension extension() {
    ReflectionUtils.makeAccessible(this.field);
    Object value = ReflectionUtils.getField(this.field, null);
    if (!(value instanceof EtcdExtension extension)) {
      throw new IllegalStateException(
          "EtcdExtension field '"
              + this.field.getName()
              + "' of "
              + this.field.getDeclaringClass().getName()
              + " is null: give it a value, e.g. EtcdExtension.members(1)");
    }
    return extension;
  }

  @Override
  public boolean equals(@Nullable Object other) {
    return other instanceof EtcdExtensionContextCustomizer customizer
        && customizer.field.equals(this.field);
  }

  @Override
  public int hashCode() {
    return this.field.hashCode();
  }

  /** {@code conch.etcd.endpoints}, asked of the running cluster each time it is read. */
  private static final class EndpointsPropertySource extends MapPropertySource {

    private final Supplier<String> endpoints;

    EndpointsPropertySource(Supplier<String> endpoints) {
      super(SOURCE_NAME, Map.of(PROPERTY, ""));
      this.endpoints = endpoints;
    }

    @Override
    public @Nullable Object getProperty(String name) {
      return PROPERTY.equals(name) ? this.endpoints.get() : null;
    }
  }
}
