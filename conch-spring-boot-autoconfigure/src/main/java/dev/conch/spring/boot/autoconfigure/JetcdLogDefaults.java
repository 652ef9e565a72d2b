package dev.conch.spring.boot.autoconfigure;

import java.util.Locale;
import java.util.Map;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.util.ClassUtils;

/**
 * Sets jetcd's client loggers to ERROR by default: {@code logging.level.io.etcd.jetcd.impl=ERROR}
 * in a property source of the lowest precedence. jetcd's retry wrapper logs two WARN lines for
 * every failed call ("retry failure", "maximum number of auto retries reached", though conch turns
 * its retries off), from the logger of each client ({@code KVImpl}, {@code LeaseImpl}, ...), and
 * its watch one for each failed resume: dozens a minute while etcd is out of reach, naming neither
 * the endpoint nor conch's setting. conch says it itself, once per attempt, naming both.
 *
 * <p>A {@code logging.level} the application sets for that package or one above it ({@code
 * logging.level.io.etcd=debug}; not {@code root}) wins: the default is then left out; one set for a
 * logger below it ({@code logging.level.io.etcd.jetcd.impl.KVImpl=warn}) wins for that logger. A
 * level set only in a logback or Log4j2 file does not count (Boot applies {@code logging.level}
 * after it): set it as {@code logging.level.*} instead. Nothing happens with {@code
 * conch.enabled=false} or without jetcd.
 */
final class JetcdLogDefaults implements EnvironmentPostProcessor, Ordered {

  /** The package of jetcd's clients and their retry wrapper. */
  static final String LOGGER = "io.etcd.jetcd.impl";

  /** The name of the property source that holds the default. */
  static final String SOURCE = "conchJetcdLogDefaults";

  @Override
  public void postProcessEnvironment(
      ConfigurableEnvironment environment, SpringApplication application) {
    if (!ClassUtils.isPresent("io.etcd.jetcd.Client", application.getClassLoader())
        || !environment.getProperty("conch.enabled", Boolean.class, true)
        || environment.getPropertySources().contains(SOURCE)) {
      return;
    }
    Map<String, String> levels =
        Binder.get(environment)
            .bind("logging.level", Bindable.mapOf(String.class, String.class))
            .orElse(Map.of());
    for (String logger : levels.keySet()) {
      String name = logger.toLowerCase(Locale.ROOT);
      if (LOGGER.equals(name) || LOGGER.startsWith(name + ".")) {
        return; // the application's own level for jetcd's clients
      }
    }
    environment
        .getPropertySources()
        .addLast(new MapPropertySource(SOURCE, Map.of("logging.level." + LOGGER, "ERROR")));
  }

  @Override
  public int getOrder() {
    // After the configuration files were read; before Boot's logging reads logging.level.
    return Ordered.LOWEST_PRECEDENCE;
  }
}
