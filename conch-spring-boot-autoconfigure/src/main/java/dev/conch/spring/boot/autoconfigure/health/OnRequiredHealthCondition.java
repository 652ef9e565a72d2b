package dev.conch.spring.boot.autoconfigure.health;

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

  @Override
  public ConditionOutcome getMatchOutcome(
      ConditionContext context, AnnotatedTypeMetadata metadata) {
    for (ConfigurationPropertySource source :
        ConfigurationPropertySources.get(context.getEnvironment())) {
      if (source instanceof IterableConfigurationPropertySource iterable) {
        for (ConfigurationPropertyName name : iterable) {
          if (requiresHealth(name) && hasText(source, name)) {
            return ConditionOutcome.match("'" + name + "' is set");
          }
        }
      }
    }
    return ConditionOutcome.noMatch(
        "neither conch.health.require (conch.require-health) nor any"
            + " conch.offices.<name>.require-health is set");
  }

  /**
   * Whether {@code name} is one of the keys, or an element of one, by its elements rather than its
   * text, so that an office named with dots ({@code conch.offices[order.sync].require-health})
   * counts too.
   */
  static boolean requiresHealth(ConfigurationPropertyName name) {
    int elements = name.getNumberOfElements();
    if (elements > 1 && name.isNumericIndex(elements - 1)) {
      elements--; // one element of the list
    }
    if (elements < 2 || !"conch".equals(element(name, 0))) {
      return false;
    }
    return switch (elements) {
      case 2 -> "require-health".equals(element(name, 1));
      case 3 -> "health".equals(element(name, 1)) && "require".equals(element(name, 2));
      case 4 -> "offices".equals(element(name, 1)) && "require-health".equals(element(name, 3));
      default -> false;
    };
  }

  private static String element(ConfigurationPropertyName name, int index) {
    return name.getElement(index, ConfigurationPropertyName.Form.DASHED);
  }

  private static boolean hasText(
      ConfigurationPropertySource source, ConfigurationPropertyName name) {
    var property = source.getConfigurationProperty(name);
    return property != null
        && property.getValue() != null
        && !property.getValue().toString().isBlank();
  }
}
