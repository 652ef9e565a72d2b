package dev.conch.spring.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observation of each {@code @OnLeadership} call and its key names, as {@link
 * DefaultHookObservationConvention} writes them; the module README's table of observations is
 * checked against it.
 */
public enum HookObservationDocumentation implements ObservationDocumentation {

  /** One call of an {@code @OnLeadership} method. */
  HOOK(
      "One call of an `@OnLeadership` method, on its transition; current on the hook's thread while"
          + " it runs; its exception, if it threw, is the error") {
    @Override
    public Class<? extends ObservationConvention<? extends Observation.Context>>
        getDefaultConvention() {
      return DefaultHookObservationConvention.class;
    }

    @Override
    public KeyName[] getLowCardinalityKeyNames() {
      return new KeyName[] {
        ConchKeyNames.OFFICE,
        ConchKeyNames.HOOK,
        ConchKeyNames.TRANSITION,
        ConchKeyNames.HOOK_REASON
      };
    }

    @Override
    public KeyName[] getHighCardinalityKeyNames() {
      return new KeyName[] {ConchKeyNames.TOKEN};
    }
  };

  private final String description;

  HookObservationDocumentation(String description) {
    this.description = description;
  }

  /** What the observation measures, as the README says it. */
  public String getDescription() {
    return this.description;
  }
}
