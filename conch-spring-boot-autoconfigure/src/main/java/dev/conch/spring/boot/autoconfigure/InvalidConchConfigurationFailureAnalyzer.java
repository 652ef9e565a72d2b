package dev.conch.spring.boot.autoconfigure;

import dev.conch.InvalidArgumentException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a startup that failed on a conch setting that Boot's analysis of an invalid property
 * value cannot explain: a value that is missing (nothing set it) or a setting that is no property
 * (a bean's). A refused property value is Boot's {@code InvalidConfigurationPropertyValueException}
 * (see {@link SettingProperties}), which Boot explains with the value's origin.
 */
class InvalidConchConfigurationFailureAnalyzer
    extends AbstractFailureAnalyzer<InvalidArgumentException> {

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, InvalidArgumentException cause) {
    String description =
        (cause.value() != null)
            ? "Invalid value '%s' for '%s'.".formatted(cause.value(), cause.name())
            : "No value for '%s'.".formatted(cause.name());
    String action = "Update '%s'. Accepted: %s.".formatted(cause.name(), cause.accepted());
    return new FailureAnalysis(description, action, cause);
  }
}
