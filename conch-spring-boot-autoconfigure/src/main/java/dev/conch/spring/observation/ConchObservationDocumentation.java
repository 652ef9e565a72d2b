package dev.conch.spring.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observations of conch and their key names ({@link ConchKeyNames}), as the default conventions
 * write them: one per {@code @OnLeadership} call, one per {@code @LeaderOnly} call. The module
 * README's table of observations is checked against it.
 */
public enum ConchObservationDocumentation implements ObservationDocumentation {

  /**
   * One call of an {@code @OnLeadership} method ({@code conch.hook}), as {@link
   * DefaultHookObservationConvention} writes it.
   */
  HOOK(
      DefaultHookObservationConvention.class,
      "One call of an `@OnLeadership` method, on its transition; current on the hook's thread while"
          + " it runs; its exception, if it threw, is the error",
      new KeyName[] {
        ConchKeyNames.OFFICE,
        ConchKeyNames.HOOK,
        ConchKeyNames.TRANSITION,
        ConchKeyNames.HOOK_REASON
      },
      ConchKeyNames.TOKEN),

  /**
   * One call of a {@code @LeaderOnly} method ({@code conch.leaderonly}), run or skipped, as {@link
   * DefaultLeaderOnlyObservationConvention} writes it: Spring's keys for a {@code @Scheduled} run
   * ({@code code.namespace}, {@code code.function}, {@code exception}, {@code outcome}), with
   * {@code SKIPPED} as the outcome of a call this instance did not run, and {@code conch.office}.
   */
  LEADER_ONLY(
      DefaultLeaderOnlyObservationConvention.class,
      "One call of a `@LeaderOnly` method or `LeaderOnlyTasks` task, run (`SUCCESS`, `ERROR`) or"
          + " skipped (`SKIPPED`, not leading); a child of the observation current on the calling"
          + " thread (a `@Scheduled` run's) and current while the method runs",
      new KeyName[] {
        ConchKeyNames.CODE_NAMESPACE,
        ConchKeyNames.CODE_FUNCTION,
        ConchKeyNames.OFFICE,
        ConchKeyNames.OUTCOME,
        ConchKeyNames.EXCEPTION
      },
      ConchKeyNames.TOKEN);

  private final Class<? extends ObservationConvention<? extends Observation.Context>> convention;

  private final String description;

  private final KeyName[] lowCardinality;

  private final KeyName[] highCardinality;

  ConchObservationDocumentation(
      Class<? extends ObservationConvention<? extends Observation.Context>> convention,
      String description,
      KeyName[] lowCardinality,
      KeyName... highCardinality) {
    this.convention = convention;
    this.description = description;
    this.lowCardinality = lowCardinality;
    this.highCardinality = highCardinality;
  }

  @Override
  public Class<? extends ObservationConvention<? extends Observation.Context>>
      getDefaultConvention() {
    return this.convention;
  }

  @Override
  public KeyName[] getLowCardinalityKeyNames() {
    return this.lowCardinality.clone();
  }

  @Override
  public KeyName[] getHighCardinalityKeyNames() {
    return this.highCardinality.clone();
  }

  /** What the observation measures, as the README says it. */
  public String getDescription() {
    return this.description;
  }
}
