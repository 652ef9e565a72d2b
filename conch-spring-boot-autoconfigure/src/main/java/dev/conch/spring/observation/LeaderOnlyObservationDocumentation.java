package dev.conch.spring.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observation of each call of a {@code @LeaderOnly} method and its key names, as {@link
 * DefaultLeaderOnlyObservationConvention} writes them: Spring's keys for a {@code @Scheduled} run
 * ({@code code.namespace}, {@code code.function}, {@code exception}, {@code outcome}), with {@code
 * SKIPPED} as the outcome of a call this instance did not run, and {@code conch.office}. The module
 * README's table of observations is checked against it.
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
      return new KeyName[] {
        ConchKeyNames.CODE_NAMESPACE,
        ConchKeyNames.CODE_FUNCTION,
        ConchKeyNames.OFFICE,
        ConchKeyNames.OUTCOME,
        ConchKeyNames.EXCEPTION
      };
    }

    @Override
    public KeyName[] getHighCardinalityKeyNames() {
      return new KeyName[] {ConchKeyNames.TOKEN};
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
}
