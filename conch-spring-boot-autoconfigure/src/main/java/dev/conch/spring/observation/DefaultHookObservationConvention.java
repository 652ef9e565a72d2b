package dev.conch.spring.observation;

import dev.conch.LossReason;
import io.micrometer.common.KeyValues;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * {@code conch.hook}: the keys of {@link ConchObservationDocumentation#HOOK}, low-cardinality
 * {@code conch.office}, {@code conch.hook} ({@code bean.method()}), {@code conch.transition}
 * ({@code acquired} or {@code lost}) and {@code conch.reason} (why the term ended, {@code none} on
 * acquire); high-cardinality {@code conch.token}. A hook's observation is no child of its term: the
 * token ties the hooks of one term.
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
        ConchKeyNames.OFFICE.withValue(context.getLeadership().office()),
        ConchKeyNames.HOOK.withValue(context.getHook()),
        ConchKeyNames.TRANSITION.withValue(context.getTransition().name().toLowerCase(Locale.ROOT)),
        ConchKeyNames.HOOK_REASON.withValue(reason(context.getReason())));
  }

  @Override
  public KeyValues getHighCardinalityKeyValues(HookObservationContext context) {
    return KeyValues.of(
        ConchKeyNames.TOKEN.withValue(Long.toString(context.getLeadership().token())));
  }

  private static String reason(@Nullable LossReason reason) {
    return (reason != null) ? reason.name().toLowerCase(Locale.ROOT) : "none";
  }
}
