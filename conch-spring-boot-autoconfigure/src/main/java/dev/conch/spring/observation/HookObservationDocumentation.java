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
      return LowCardinalityKeyNames.values();
    }

    @Override
    public KeyName[] getHighCardinalityKeyNames() {
      return HighCardinalityKeyNames.values();
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

  /** Low-cardinality key names of {@code conch.hook}. */
  public enum LowCardinalityKeyNames implements KeyName {

    /** The office whose transition runs the hook. */
    OFFICE("office", "The office whose transition runs the hook"),

    /** The hook, as {@code bean.method()}. */
    HOOK("hook", "The hook, as `bean.method()`"),

    /** The transition the hook runs on. */
    TRANSITION("transition", "The transition the hook runs on: `acquired` or `lost`"),

    /** Why the term ended, on {@code lost}. */
    REASON(
        "reason",
        "Why the term ended, on `lost`: the `LossReason` in lower case (`resigned`,"
            + " `key_deleted`, `lease_expired`, `renewal_failed`, `acquire_failed`, ...);"
            + " `none` on `acquired`");

    private final String name;

    private final String description;

    LowCardinalityKeyNames(String name, String description) {
      this.name = name;
      this.description = description;
    }

    @Override
    public String asString() {
      return this.name;
    }

    /** What the key's value says, as the README says it. */
    public String getDescription() {
      return this.description;
    }
  }

  /** High-cardinality key names of {@code conch.hook}. */
  public enum HighCardinalityKeyNames implements KeyName {

    /** The fencing token of the term the hook runs in. */
    TOKEN("token", "The fencing token of the term the hook runs in");

    private final String name;

    private final String description;

    HighCardinalityKeyNames(String name, String description) {
      this.name = name;
      this.description = description;
    }

    @Override
    public String asString() {
      return this.name;
    }

    /** What the key's value says, as the README says it. */
    public String getDescription() {
      return this.description;
    }
  }
}
