package dev.conch.spring.leaderonly;

import dev.conch.spring.observation.DefaultLeaderOnlyObservationConvention;
import dev.conch.spring.observation.LeaderOnlyObservationContext;
import dev.conch.spring.observation.LeaderOnlyObservationConvention;
import io.micrometer.common.KeyValue;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;

/**
 * Times each call of a {@link LeaderOnly @LeaderOnly} method in the timer {@code conch.leaderonly},
 * when the application has a {@code MeterRegistry} and no {@code ObservationRegistry}: the same
 * name and tags (the convention's low-cardinality keys) as the timer Micrometer's meter handler
 * makes of the observation, so dashboards read one series either way.
 */
final class LeaderOnlyMetrics implements LeaderOnlyObserver {

  /** The name of the counter of the firings of each job. */
  static final String FIRINGS = "conch.leaderonly.firings";

  private final MeterRegistry registry;

  private final LeaderOnlyObservationConvention convention;

  /** Times in {@code registry}, named by {@code convention}. */
  LeaderOnlyMetrics(MeterRegistry registry, LeaderOnlyObservationConvention convention) {
    this.registry = registry;
    this.convention = convention;
  }

  /** Times in the application's {@code MeterRegistry}; null when it has none. */
  static @Nullable LeaderOnlyObserver of(
      BeanFactory beanFactory, LeaderOnlyObservationConvention convention) {
    MeterRegistry registry = beanFactory.getBeanProvider(MeterRegistry.class).getIfUnique();
    return (registry != null) ? new LeaderOnlyMetrics(registry, convention) : null;
  }

  /**
   * The counter {@code conch.leaderonly.firings} of each {@code @Scheduled} job, tagged {@code
   * office}, {@code job} ({@code Class.method()}) and {@code outcome}, in the application's {@code
   * MeterRegistry}; null when it has none. Recorded whether or not there is an {@code
   * ObservationRegistry}: no observation counts misfires.
   */
  static @Nullable JobMeters firings(BeanFactory beanFactory) {
    MeterRegistry registry = beanFactory.getBeanProvider(MeterRegistry.class).getIfUnique();
    if (registry == null) {
      return null;
    }
    return (office, job, outcome, count) ->
        Counter.builder(FIRINGS)
            .description("Firings of @Scheduled @LeaderOnly jobs, by what became of them")
            .tags("office", office, "job", job, "outcome", outcome)
            .register(registry)
            .increment(count);
  }

  @Override
  public void skipped(LeaderOnlyObservationContext context) {
    Timer.start(this.registry).stop(timer(context));
  }

  @Override
  public @Nullable Object run(LeaderOnlyObservationContext context, LeaderOnlyInvocations.Call call)
      throws Throwable {
    Timer.Sample sample = Timer.start(this.registry);
    try {
      return call.proceed();
    } catch (Throwable ex) {
      context.setError(ex);
      throw ex;
    } finally {
      sample.stop(timer(context));
    }
  }

  private Timer timer(LeaderOnlyObservationContext context) {
    List<Tag> tags = new ArrayList<>();
    for (KeyValue keyValue : this.convention.getLowCardinalityKeyValues(context)) {
      tags.add(Tag.of(keyValue.getKey(), keyValue.getValue()));
    }
    return Timer.builder(
            Objects.requireNonNullElse(
                this.convention.getName(), DefaultLeaderOnlyObservationConvention.NAME))
        .description("Calls of @LeaderOnly methods, run or skipped")
        .tags(Tags.of(tags))
        .register(this.registry);
  }
}
