package dev.conch.spring.observation;

import dev.conch.Leadership;
import dev.conch.spring.observation.LeaderOnlyObservationDocumentation.HighCardinalityKeyNames;
import dev.conch.spring.observation.LeaderOnlyObservationDocumentation.LowCardinalityKeyNames;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import org.jspecify.annotations.Nullable;

/**
 * {@code conch.leaderonly}: the keys of {@link LeaderOnlyObservationDocumentation}, as Spring's
 * {@code DefaultScheduledTaskObservationConvention} names a {@code @Scheduled} run (low-cardinality
 * {@code code.namespace}, {@code code.function}, {@code exception}, {@code outcome}), plus {@code
 * office}; high-cardinality {@code token}. A task run through {@code LeaderOnlyTasks} has its name
 * as {@code code.function} and {@code none} as {@code code.namespace}: the same keys, so that one
 * meter name keeps one set of tags.
 */
public class DefaultLeaderOnlyObservationConvention implements LeaderOnlyObservationConvention {

  /** The name of the observation of a {@code @LeaderOnly} call. */
  public static final String NAME = "conch.leaderonly";

  /** The outcome of a call that ran and returned. */
  public static final String SUCCESS = "SUCCESS";

  /** The outcome of a call that ran and threw. */
  public static final String ERROR = "ERROR";

  /** The outcome of a call that was not run: this instance did not lead the office. */
  public static final String SKIPPED = "SKIPPED";

  private static final KeyValue EXCEPTION_NONE =
      LowCardinalityKeyNames.EXCEPTION.withValue(KeyValue.NONE_VALUE);

  @Override
  public String getName() {
    return NAME;
  }

  @Override
  public String getContextualName(LeaderOnlyObservationContext context) {
    Class<?> targetClass = context.getTargetClass();
    return (targetClass != null)
        ? "leaderonly " + targetClass.getSimpleName() + "." + context.getFunctionName()
        : "leaderonly " + context.getFunctionName();
  }

  @Override
  public KeyValues getLowCardinalityKeyValues(LeaderOnlyObservationContext context) {
    return KeyValues.of(
        codeNamespace(context),
        LowCardinalityKeyNames.CODE_FUNCTION.withValue(context.getFunctionName()),
        LowCardinalityKeyNames.OFFICE.withValue(context.getOffice()),
        LowCardinalityKeyNames.OUTCOME.withValue(outcome(context)),
        exception(context));
  }

  @Override
  public KeyValues getHighCardinalityKeyValues(LeaderOnlyObservationContext context) {
    Leadership leadership = context.getLeadership();
    return KeyValues.of(
        HighCardinalityKeyNames.TOKEN.withValue(
            (leadership != null) ? Long.toString(leadership.token()) : KeyValue.NONE_VALUE));
  }

  private static KeyValue codeNamespace(LeaderOnlyObservationContext context) {
    Class<?> targetClass = context.getTargetClass();
    if (targetClass == null) {
      return LowCardinalityKeyNames.CODE_NAMESPACE.withValue(KeyValue.NONE_VALUE);
    }
    @Nullable String name = targetClass.getCanonicalName();
    return LowCardinalityKeyNames.CODE_NAMESPACE.withValue((name != null) ? name : "ANONYMOUS");
  }

  private static String outcome(LeaderOnlyObservationContext context) {
    if (context.isSkipped()) {
      return SKIPPED;
    }
    return (context.getError() != null) ? ERROR : SUCCESS;
  }

  private static KeyValue exception(LeaderOnlyObservationContext context) {
    Throwable error = context.getError();
    return (error != null)
        ? LowCardinalityKeyNames.EXCEPTION.withValue(error.getClass().getSimpleName())
        : EXCEPTION_NONE;
  }
}
