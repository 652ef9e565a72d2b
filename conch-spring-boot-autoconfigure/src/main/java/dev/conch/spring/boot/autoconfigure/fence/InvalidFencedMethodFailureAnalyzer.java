package dev.conch.spring.boot.autoconfigure.fence;

import dev.conch.spring.fence.InvalidFencedMethodException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Explains a startup that failed on a {@code @Fenced} method conch cannot fence. */
class InvalidFencedMethodFailureAnalyzer
    extends AbstractFailureAnalyzer<InvalidFencedMethodException> {

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, InvalidFencedMethodException cause) {
    return new FailureAnalysis(cause.getMessage() + ".", cause.getAction(), cause);
  }
}
