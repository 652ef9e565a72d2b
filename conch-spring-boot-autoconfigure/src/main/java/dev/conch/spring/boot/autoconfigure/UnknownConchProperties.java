package dev.conch.spring.boot.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * Warns, in one line at start-up, of {@code conch.*} properties that nothing binds: a typo ({@code
 * conch.tll}, {@code conch.etcd.endpoint}, {@code conch.offices.billing.stop-timout}) would
 * otherwise leave the default in force without a word. Each is named with where it came from and,
 * for a near miss, the name it was probably meant to be. The known names are those of conch's
 * configuration metadata ({@link ConchPropertyNames}).
 *
 * <p>Runs after the configuration files were read (last among the environment post-processors), so
 * it sees {@code application.yaml}, profiles, the command line and the environment; a property
 * source added later (a {@code @PropertySource} class) is not checked. Its line goes out once
 * logging is set up.
 */
final class UnknownConchProperties implements EnvironmentPostProcessor, Ordered {

  /**
   * conch's own environment variables, no properties: read by {@code conch elect} ({@code
   * CONCH_ENDPOINTS}, {@code CONCH_PASSWORD}, {@code CONCH_LOG}) or set for the command it runs
   * ({@code CONCH_NAME}, {@code CONCH_REV}, {@code CONCH_LEASE}), which may be this application.
   */
  private static final Set<String> CLI_VARIABLES =
      Set.of(
          "conch.endpoints",
          "conch.password",
          "conch.log",
          "conch.name",
          "conch.rev",
          "conch.lease");

  private final Log logger;

  UnknownConchProperties(DeferredLogFactory logFactory) {
    this.logger = logFactory.getLog(UnknownConchProperties.class);
  }

  @Override
  public void postProcessEnvironment(
      ConfigurableEnvironment environment, SpringApplication application) {
    String warning = warning(environment, application.getClassLoader());
    if (warning != null) {
      this.logger.warn(warning);
    }
  }

  /** The warning for {@code environment}'s unknown {@code conch.*} properties, or null. */
  static @Nullable String warning(
      ConfigurableEnvironment environment, @Nullable ClassLoader classLoader) {
    ConchPropertyNames known = null;
    Set<String> seen = new LinkedHashSet<>();
    List<String> unknown = new ArrayList<>();
    for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
      if (!(source instanceof IterableConfigurationPropertySource iterable)) {
        continue;
      }
      boolean variables = isEnvironmentVariables(source.getUnderlyingSource());
      for (ConfigurationPropertyName name :
          (Iterable<ConfigurationPropertyName>) iterable::iterator) {
        if (name.getNumberOfElements() < 2
            || !name.getElement(0, Form.UNIFORM).equals("conch")
            || !seen.add(name.toString())) {
          continue;
        }
        if (known == null) {
          known = ConchPropertyNames.load(classLoader);
        }
        if (!known.isKnown(name, variables)
            && !(variables && CLI_VARIABLES.contains(name.toString()))) {
          unknown.add(describe(name, source, known));
        }
      }
    }
    if (unknown.isEmpty()) {
      return null;
    }
    boolean one = unknown.size() == 1;
    return "Unknown conch "
        + (one ? "property, ignored (nothing binds it; check the name): " : "properties, ignored")
        + (one ? "" : " (nothing binds them; check the names): ")
        + String.join("; ", unknown);
  }

  private static String describe(
      ConfigurationPropertyName name,
      ConfigurationPropertySource source,
      ConchPropertyNames known) {
    ConfigurationProperty property = source.getConfigurationProperty(name);
    String from =
        (property != null && property.getOrigin() != null)
            ? String.valueOf(property.getOrigin())
            : String.valueOf(source.getUnderlyingSource());
    String closest = known.closest(name);
    return name + " (" + from + ((closest != null) ? "; did you mean " + closest + "?" : "") + ")";
  }

  private static boolean isEnvironmentVariables(@Nullable Object source) {
    return source instanceof SystemEnvironmentPropertySource
        || (source instanceof PropertySource<?> propertySource
            && propertySource.getSource() instanceof SystemEnvironmentPropertySource);
  }

  @Override
  public int getOrder() {
    return Ordered.LOWEST_PRECEDENCE;
  }
}
