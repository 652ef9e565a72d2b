package dev.conch.spring.boot.autoconfigure;

import dev.conch.InvalidArgumentException;
import dev.conch.spring.health.CandidacyPauses;
import dev.conch.spring.health.CandidacyPauses.Requirement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The health each office requires, read from {@code conch.require-health} and {@code
 * conch.quarantine} (every office) and their {@code conch.offices.<name>.*} overrides, with the
 * property each came from so that a refusal names it.
 */
final class HealthRequirements {

  private HealthRequirements() {}

  /**
   * @throws
   *     org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException
   *     naming a negative quarantine as the user wrote it
   */
  static CandidacyPauses of(ConchProperties properties, ConfiguredOffices offices) {
    Requirement defaults =
        new Requirement(
            properties.getRequireHealth(),
            properties.getQuarantine(),
            "conch.require-health",
            "conch.quarantine");
    Map<String, Requirement> byOffice = new LinkedHashMap<>();
    for (String office : offices.names()) {
      ConchProperties.Office own = properties.getOffices().get(office);
      List<String> indicators = (own != null) ? own.getRequireHealth() : null;
      Duration quarantine = (own != null) ? own.getQuarantine() : null;
      String prefix = "conch.offices." + office + ".";
      byOffice.put(
          office,
          new Requirement(
              (indicators != null) ? indicators : defaults.indicators(),
              (quarantine != null) ? quarantine : defaults.quarantine(),
              (indicators != null) ? prefix + "require-health" : defaults.property(),
              (quarantine != null) ? prefix + "quarantine" : defaults.quarantineProperty()));
    }
    try {
      return new CandidacyPauses(byOffice, defaults);
    } catch (InvalidArgumentException ex) {
      throw SettingProperties.asPropertyValue(ex, offices.environment());
    }
  }
}
