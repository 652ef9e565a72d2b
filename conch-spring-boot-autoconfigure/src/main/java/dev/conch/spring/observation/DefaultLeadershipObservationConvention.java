package dev.conch.spring.observation;

import dev.conch.LossReason;
import io.micrometer.common.KeyValues;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * {@code conch.leadership}: low-cardinality {@code office}, and {@code reason} once the term ended
 * (the {@link LossReason} in lower case); high-cardinality {@code token}.
 */
public class DefaultLeadershipObservationConvention implements LeadershipObservationConvention {

  /** The name of the observation of a term. */
  public static final String NAME = "conch.leadership";

  @Override
  public String getName() {
    return NAME;
  }

  @Override
  public String getContextualName(LeadershipObservationContext context) {
    return "leadership " + context.getLeadership().office();
  }

  @Override
  public KeyValues getLowCardinalityKeyValues(LeadershipObservationContext context) {
    KeyValues values = KeyValues.of("office", context.getLeadership().office());
    LossReason reason = context.getReason();
    return (reason != null) ? values.and("reason", reason(reason)) : values;
  }

  @Override
  public KeyValues getHighCardinalityKeyValues(LeadershipObservationContext context) {
    return KeyValues.of("token", Long.toString(context.getLeadership().token()));
  }

  static String reason(@Nullable LossReason reason) {
    return (reason != null) ? reason.name().toLowerCase(Locale.ROOT) : "none";
  }
}
