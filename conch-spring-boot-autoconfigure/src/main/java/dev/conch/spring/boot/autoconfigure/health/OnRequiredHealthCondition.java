package dev.conch.spring.boot.autoconfigure.health;

import java.util.regex.Pattern;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when some office requires health: {@code conch.health.require} (or the deprecated {@code
 * conch.require-health}) or a {@code conch.offices.<name>.require-health} is set (in any form Boot
 * binds: a list, indexed, or comma-separated). Without one, the health gate costs nothing: no bean,
 * no thread.
 */
class OnRequiredHealthCondition extends SpringBootCondition {

  private static final Pattern REQUIRE_HEALTH =
      Pattern.compile(
          "conch\\.(health\\.require|require-health|offices\\.[^.]+\\.require-health)(\\[\\d+])?");

  @Override
  public ConditionOutcome getMatchOutcome(
      ConditionContext context, AnnotatedTypeMetadata metadata) {
    for (ConfigurationPropertySource source :
        ConfigurationPropertySources.get(context.getEnvironment())) {
      if (source instanceof IterableConfigurationPropertySource iterable) {
        for (ConfigurationPropertyName name : iterable) {
          String property = name.toString();
          if (property.startsWith("conch.")
              && REQUIRE_HEALTH.matcher(property).matches()
              && hasText(source, name)) {
            return ConditionOutcome.match("'" + property + "' is set");
          }
        }
      }
    }
    return ConditionOutcome.noMatch(
        "neither conch.health.require (conch.require-health) nor any"
            + " conch.offices.<name>.require-health is set");
  }

  private static boolean hasText(
      ConfigurationPropertySource source, ConfigurationPropertyName name) {
    var property = source.getConfigurationProperty(name);
    return property != null
        && property.getValue() != null
        && !property.getValue().toString().isBlank();
  }
}
