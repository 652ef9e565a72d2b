package dev.conch.spring.boot.autoconfigure;

import dev.conch.InvalidArgumentException;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Runs the core's checks of a setting and, when one fails, names the configuration property the
 * value came from: the core says "ttl", the user wrote {@code conch.ttl}.
 */
final class ConchChecks {

  private ConchChecks() {}

  /** Runs {@code check}; any refusal is reported against {@code property}. */
  static <T> T check(String property, Supplier<T> check) {
    try {
      return check.get();
    } catch (InvalidArgumentException ex) {
      throw renamed(ex, property);
    }
  }

  /**
   * Runs {@code check}; a refusal of the core setting {@code name} is reported against {@code
   * properties.get(name)}, or {@code conch.<name>} when it is not in the map.
   */
  static <T> T check(Map<String, String> properties, Supplier<T> check) {
    try {
      return check.get();
    } catch (InvalidArgumentException ex) {
      throw renamed(ex, properties.getOrDefault(ex.name(), "conch." + ex.name()));
    }
  }

  private static InvalidArgumentException renamed(InvalidArgumentException ex, String property) {
    InvalidArgumentException named =
        new InvalidArgumentException(property, ex.value(), ex.accepted());
    named.initCause(ex);
    return named;
  }
}
