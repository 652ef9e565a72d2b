package dev.conch.spring.boot.autoconfigure;

import dev.conch.spring.InvalidOnLeadershipMethodException;
import dev.conch.spring.OnLeadership;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a startup that failed on an {@link OnLeadership @OnLeadership} method conch cannot call
 * as a hook: which method, why, and what to change.
 */
class InvalidOnLeadershipMethodFailureAnalyzer
    extends AbstractFailureAnalyzer<InvalidOnLeadershipMethodException> {

  @Override
  protected FailureAnalysis analyze(
      Throwable rootFailure, InvalidOnLeadershipMethodException cause) {
    String description =
        "@OnLeadership method %s cannot be a hook: %s.".formatted(cause.method(), cause.reason());
    return new FailureAnalysis(description, cause.action(), cause);
  }
}
