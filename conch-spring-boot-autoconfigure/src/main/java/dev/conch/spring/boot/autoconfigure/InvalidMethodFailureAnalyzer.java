package dev.conch.spring.boot.autoconfigure;

import dev.conch.spring.InvalidMethodException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a startup that failed on an {@code @OnLeadership}, {@code @LeaderOnly} or
 * {@code @Fenced} method conch cannot honour: which method, why, and what to change.
 */
public final class InvalidMethodFailureAnalyzer
    extends AbstractFailureAnalyzer<InvalidMethodException> {

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, InvalidMethodException cause) {
    return new FailureAnalysis(cause.getMessage() + ".", cause.getAction(), cause);
  }
}
