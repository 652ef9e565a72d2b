package dev.conch.spring.boot.autoconfigure;

import dev.conch.InvalidArgumentException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a startup that failed on a conch setting: which property, what value it had, and what
 * would be accepted.
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
