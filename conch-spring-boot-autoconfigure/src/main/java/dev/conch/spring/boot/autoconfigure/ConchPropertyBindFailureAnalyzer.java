package dev.conch.spring.boot.autoconfigure;

import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.convert.ConversionException;

/**
 * Explains a {@code conch.*} number or duration that could not even be read ({@code
 * conch.candidate.priority=abc}): the property, the value as typed, where it came from, and what
 * conch accepts. Ahead of Boot's own analysis of a failed binding, which names the Java type
 * ({@code int}) instead of an example.
 */
class ConchPropertyBindFailureAnalyzer extends AbstractFailureAnalyzer<BindException>
    implements Ordered {

  @Override
  protected @Nullable FailureAnalysis analyze(Throwable rootFailure, BindException cause) {
    ConfigurationProperty property = cause.getProperty();
    if (property == null
        || !property.getName().toString().startsWith("conch.")
        || !(cause.getCause() instanceof ConversionException)) {
      return null;
    }
    Class<?> type = cause.getTarget().getType().resolve();
    String accepted;
    if (type == int.class || type == Integer.class) {
      accepted = "an integer, e.g. 0 or 10";
    } else if (type == Duration.class) {
      accepted = "a duration, e.g. 300ms, 5s or 1m";
    } else {
      return null;
    }
    String name = property.getName().toString();
    String origin = (property.getOrigin() != null) ? " (from " + property.getOrigin() + ")" : "";
    return new FailureAnalysis(
        "Invalid value '%s' for '%s'%s.".formatted(property.getValue(), name, origin),
        "Update '%s'. Accepted: %s.".formatted(name, accepted),
        cause);
  }

  @Override
  public int getOrder() {
    return Ordered.HIGHEST_PRECEDENCE;
  }
}
