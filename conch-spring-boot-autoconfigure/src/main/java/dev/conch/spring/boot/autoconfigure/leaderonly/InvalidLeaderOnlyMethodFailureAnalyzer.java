package dev.conch.spring.boot.autoconfigure.leaderonly;

import dev.conch.spring.leaderonly.InvalidLeaderOnlyMethodException;
import dev.conch.spring.leaderonly.LeaderOnly;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Explains a startup that failed on a {@link LeaderOnly @LeaderOnly} method conch cannot guard. */
class InvalidLeaderOnlyMethodFailureAnalyzer
    extends AbstractFailureAnalyzer<InvalidLeaderOnlyMethodException> {

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, InvalidLeaderOnlyMethodException cause) {
    return new FailureAnalysis(cause.getMessage() + ".", cause.getAction(), cause);
  }
}
