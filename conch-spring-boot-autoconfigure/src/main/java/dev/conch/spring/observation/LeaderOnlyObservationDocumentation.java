package dev.conch.spring.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observation of each call of a {@code @LeaderOnly} method and its key names, as {@link
 * DefaultLeaderOnlyObservationConvention} writes them: Spring's keys for a {@code @Scheduled} run
 * ({@code code.namespace}, {@code code.function}, {@code exception}, {@code outcome}), with {@code
 * SKIPPED} as the outcome of a call this instance did not run, and the office. The module README's
 * table of observations is checked against it.
 */
public enum LeaderOnlyObservationDocumentation implements ObservationDocumentation {

  /** One call of a {@code @LeaderOnly} method, run or skipped. */
  LEADER_ONLY(
      "One call of a `@LeaderOnly` method or `LeaderOnlyTasks` task, run (`SUCCESS`, `ERROR`) or"
          + " skipped (`SKIPPED`, not leading); a child of the observation current on the calling thread (a `@Scheduled`"
          + " run's) and current while the method runs") {
    @Override
    public Class<? extends ObservationConvention<? extends Observation.Context>>
        getDefaultConvention() {
      return DefaultLeaderOnlyObservationConvention.class;
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

  LeaderOnlyObservationDocumentation(String description) {
    this.description = description;
  }

  /** What the observation measures, as the README says it. */
  public String getDescription() {
    return this.description;
  }

  /** Low-cardinality key names of {@code conch.leaderonly}. */
  public enum LowCardinalityKeyNames implements KeyName {

    /** The canonical name of the class that declares the method. */
    CODE_NAMESPACE(
        "code.namespace",
        "The canonical name of the method's class (`ANONYMOUS` for a class that has none; `none`"
            + " for a task)"),

    /** The name of the method. */
    CODE_FUNCTION("code.function", "The name of the method, or the task's name"),

    /** The office the call needs. */
    OFFICE("office", "The office the method needs"),

    /** {@code SUCCESS}, {@code ERROR} or {@code SKIPPED}. */
    OUTCOME(
        "outcome",
        "`SUCCESS` (ran and returned), `ERROR` (ran and threw) or `SKIPPED` (not run: this"
            + " instance does not lead the office)"),

    /** The simple name of the exception the method threw, or {@code none}. */
    EXCEPTION("exception", "The simple name of the exception the method threw, else `none`");

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

  /** High-cardinality key names of {@code conch.leaderonly}. */
  public enum HighCardinalityKeyNames implements KeyName {

    /** The fencing token of the term the call ran in. */
    TOKEN("token", "The fencing token of the term the method ran in; `none` when skipped");

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
