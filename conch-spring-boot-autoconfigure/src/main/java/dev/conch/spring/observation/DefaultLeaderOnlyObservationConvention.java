package dev.conch.spring.observation;

import dev.conch.Leadership;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import org.jspecify.annotations.Nullable;

/**
 * {@code conch.leaderonly}: the keys of {@link ConchObservationDocumentation#LEADER_ONLY}, as
 * Spring's {@code DefaultScheduledTaskObservationConvention} names a {@code @Scheduled} run
 * (low-cardinality {@code code.namespace}, {@code code.function}, {@code exception}, {@code
 * outcome}), plus {@code conch.office}; high-cardinality {@code conch.token}. A task run through
 * {@code LeaderOnlyTasks} has its name as {@code code.function} and {@code none} as {@code
 * code.namespace}: the same keys, so that one meter name keeps one set of tags.
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
      ConchKeyNames.EXCEPTION.withValue(KeyValue.NONE_VALUE);

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
        ConchKeyNames.CODE_FUNCTION.withValue(context.getFunctionName()),
        ConchKeyNames.OFFICE.withValue(context.getOffice()),
        ConchKeyNames.OUTCOME.withValue(outcome(context)),
        exception(context));
  }

  @Override
  public KeyValues getHighCardinalityKeyValues(LeaderOnlyObservationContext context) {
    Leadership leadership = context.getLeadership();
    return KeyValues.of(
        ConchKeyNames.TOKEN.withValue(
            (leadership != null) ? Long.toString(leadership.token()) : KeyValue.NONE_VALUE));
  }

  private static KeyValue codeNamespace(LeaderOnlyObservationContext context) {
    Class<?> targetClass = context.getTargetClass();
    if (targetClass == null) {
      return ConchKeyNames.CODE_NAMESPACE.withValue(KeyValue.NONE_VALUE);
    }
    @Nullable String name = targetClass.getCanonicalName();
    return ConchKeyNames.CODE_NAMESPACE.withValue((name != null) ? name : "ANONYMOUS");
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
        ? ConchKeyNames.EXCEPTION.withValue(error.getClass().getSimpleName())
        : EXCEPTION_NONE;
  }
}
