package dev.conch.spring.observation;

import io.micrometer.common.KeyValues;

/**
 * {@code conch.leaderonly}: low-cardinality {@code office} and {@code method} ({@code
 * Class.method()}); high-cardinality {@code token}.
 */
public class DefaultLeaderOnlyObservationConvention implements LeaderOnlyObservationConvention {

  /** The name of the observation of a {@code @LeaderOnly} call that ran. */
  public static final String NAME = "conch.leaderonly";

  @Override
  public String getName() {
    return NAME;
  }

  @Override
  public String getContextualName(LeaderOnlyObservationContext context) {
    return "leaderonly " + context.getMethod();
  }

  @Override
  public KeyValues getLowCardinalityKeyValues(LeaderOnlyObservationContext context) {
    return KeyValues.of("office", context.getLeadership().office(), "method", context.getMethod());
  }

  @Override
  public KeyValues getHighCardinalityKeyValues(LeaderOnlyObservationContext context) {
    return KeyValues.of("token", Long.toString(context.getLeadership().token()));
  }
}
