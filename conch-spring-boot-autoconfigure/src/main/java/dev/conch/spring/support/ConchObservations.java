package dev.conch.spring.support;

import dev.conch.Leadership;
import dev.conch.LeadershipHandler;
import dev.conch.LossReason;
import dev.conch.spring.OnLeadership.Transition;
import dev.conch.spring.observation.DefaultHookObservationConvention;
import dev.conch.spring.observation.HookObservationContext;
import dev.conch.spring.observation.HookObservationConvention;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;

/**
 * Observes each {@code @OnLeadership} call ({@code conch.hook}), with the office, transition and
 * token of its term. A hook's observation is the current one on the hook's thread while the hook
 * runs, so a tracer puts its span in the MDC of the hook's log lines.
 *
 * <p>The term itself is no observation: a span open for the whole term would be exported only when
 * the term ends, and never after a crash. The term is in the meters ({@code conch.leader}, {@code
 * conch.term}); its hooks share its token.
 *
 * <p>Infrastructure of the starter: its observation auto-configuration makes it of the
 * application's {@code ObservationRegistry} and convention; applications do not use it.
 */
public final class ConchObservations implements LeadershipObserver {

  private final ObservationRegistry registry;

  private static final HookObservationConvention DEFAULT = new DefaultHookObservationConvention();

  private final @Nullable HookObservationConvention hookConvention;

  /**
   * The observations the observation auto-configuration made (of the application's {@code
   * ObservationRegistry} and convention); null without them, or with a no-op registry. Looked up
   * once every singleton exists, not injected: the lifecycle is created before the registry.
   */
  static @Nullable LeadershipObserver of(BeanFactory beanFactory) {
    ConchObservations observations =
        beanFactory.getBeanProvider(ConchObservations.class).getIfUnique();
    return (observations != null && !observations.registry.isNoop()) ? observations : null;
  }

  /**
   * Observations in {@code registry}, named by the application's convention {@code hook} when it
   * has one (it beats the registry's global conventions), else by those, else by the default.
   *
   * @param registry the application's registry
   * @param hook the application's convention, if any
   */
  public ConchObservations(ObservationRegistry registry, @Nullable HookObservationConvention hook) {
    this.registry = registry;
    this.hookConvention = hook;
  }

  @Override
  public LeadershipHandler hook(String office, String name, Transition on, LeadershipHandler hook) {
    return new Hook(name, on, hook);
  }

  /** One {@code @OnLeadership} method, each call observed on its transition. */
  private final class Hook implements LeadershipHandler {

    private final String name;

    private final Transition on;

    private final LeadershipHandler hook;

    Hook(String name, Transition on, LeadershipHandler hook) {
      this.name = name;
      this.on = on;
      this.hook = hook;
    }

    @Override
    public void acquired(Leadership leadership) throws Exception {
      if (this.on != Transition.ACQUIRED) {
        this.hook.acquired(leadership);
        return;
      }
      observation(leadership, null).observeChecked(() -> this.hook.acquired(leadership));
    }

    @Override
    public void lost(Leadership leadership, LossReason reason) throws Exception {
      if (this.on != Transition.LOST) {
        this.hook.lost(leadership, reason);
        return;
      }
      observation(leadership, reason).observeChecked(() -> this.hook.lost(leadership, reason));
    }

    private Observation observation(Leadership leadership, @Nullable LossReason reason) {
      return Observation.createNotStarted(
          ConchObservations.this.hookConvention,
          DEFAULT,
          () -> new HookObservationContext(this.name, this.on, leadership, reason),
          ConchObservations.this.registry);
    }

    @Override
    public String toString() {
      return this.hook.toString();
    }
  }
}
