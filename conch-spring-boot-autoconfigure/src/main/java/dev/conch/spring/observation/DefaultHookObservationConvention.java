package dev.conch.spring.observation;

import io.micrometer.common.KeyValues;
import java.util.Locale;

/**
 * {@code conch.hook}: low-cardinality {@code office}, {@code hook} ({@code bean.method()}), {@code
 * transition} ({@code acquired} or {@code lost}) and {@code reason} (why the term ended, {@code
 * none} on acquire); high-cardinality {@code token}.
 */
public class DefaultHookObservationConvention implements HookObservationConvention {

  /** The name of the observation of a hook call. */
  public static final String NAME = "conch.hook";

  @Override
  public String getName() {
    return NAME;
  }

  @Override
  public String getContextualName(HookObservationContext context) {
    return "hook " + context.getHook();
  }

  @Override
  public KeyValues getLowCardinalityKeyValues(HookObservationContext context) {
    return KeyValues.of(
        "office", context.getLeadership().office(),
        "hook", context.getHook(),
        "transition", context.getTransition().name().toLowerCase(Locale.ROOT),
        "reason", DefaultLeadershipObservationConvention.reason(context.getReason()));
  }

  @Override
  public KeyValues getHighCardinalityKeyValues(HookObservationContext context) {
    return KeyValues.of("token", Long.toString(context.getLeadership().token()));
  }
}
