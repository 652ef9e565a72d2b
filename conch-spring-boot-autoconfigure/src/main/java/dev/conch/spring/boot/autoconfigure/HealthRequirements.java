package dev.conch.spring.boot.autoconfigure;

import dev.conch.InvalidArgumentException;
import dev.conch.spring.health.CandidacyPauses;
import dev.conch.spring.health.CandidacyPauses.Requirement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The health each office requires, read from {@code conch.health.require} and {@code
 * conch.health.quarantine} (every office; the deprecated {@code conch.require-health} and {@code
 * conch.quarantine} where those are not set) and their {@code conch.offices.<name>.*} overrides,
 * with the property each came from so that a refusal names it. The check's own timings ({@code
 * conch.health.interval}, {@code conch.health.timeout}) are refused here too, with the rest of
 * {@code conch.health.*}.
 */
final class HealthRequirements {

  static final String REQUIRE = "conch.health.require";

  static final String QUARANTINE = "conch.health.quarantine";

  static final String INTERVAL = "conch.health.interval";

  static final String TIMEOUT = "conch.health.timeout";

  private HealthRequirements() {}

  /**
   * @throws
   *     org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException
   *     naming a negative quarantine, or an interval or timeout that is not positive, as the user
   *     wrote it
   */
  @SuppressWarnings("deprecation") // conch.require-health and conch.quarantine keep working
  static CandidacyPauses of(ConchProperties properties, ConfiguredOffices offices) {
    ConchProperties.Health health = properties.getHealth();
    List<String> require = health.getRequire();
    String requireProperty = REQUIRE;
    List<String> oldRequire = properties.getRequireHealth();
    if (require.isEmpty() && oldRequire != null) {
      require = oldRequire;
      requireProperty = "conch.require-health";
    }
    Duration quarantine = health.getQuarantine();
    String quarantineProperty = QUARANTINE;
    Duration oldQuarantine = properties.getQuarantine();
    if (quarantine == null && oldQuarantine != null) {
      quarantine = oldQuarantine;
      quarantineProperty = "conch.quarantine";
    }
    Requirement defaults =
        new Requirement(
            require,
            (quarantine != null) ? quarantine : CandidacyPauses.DEFAULT_QUARANTINE,
            requireProperty,
            quarantineProperty);
    Map<String, Requirement> byOffice = new LinkedHashMap<>();
    for (String office : offices.names()) {
      ConchProperties.Office own = properties.getOffices().get(office);
      List<String> indicators = (own != null) ? own.getRequireHealth() : null;
      Duration ownQuarantine = (own != null) ? own.getQuarantine() : null;
      String prefix = "conch.offices." + office + ".";
      byOffice.put(
          office,
          new Requirement(
              (indicators != null) ? indicators : defaults.indicators(),
              (ownQuarantine != null) ? ownQuarantine : defaults.quarantine(),
              (indicators != null) ? prefix + "require-health" : defaults.property(),
              (ownQuarantine != null) ? prefix + "quarantine" : defaults.quarantineProperty()));
    }
    try {
      positive(INTERVAL, health.getInterval(), "1s");
      positive(TIMEOUT, health.getTimeout(), "5s");
      return new CandidacyPauses(byOffice, defaults);
    } catch (InvalidArgumentException ex) {
      throw SettingProperties.asPropertyValue(ex, offices.environment());
    }
  }

  private static void positive(String property, Duration value, String example) {
    if (value.isZero() || value.isNegative()) {
      throw new InvalidArgumentException(
          property, value, "a duration of more than zero, e.g. " + example);
    }
  }
}
