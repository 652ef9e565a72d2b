package dev.conch.spring;

import dev.conch.Election;
import dev.conch.Leadership;
import dev.conch.LeadershipHandler;
import dev.conch.LossReason;
import dev.conch.spring.OnLeadership.Transition;
import dev.conch.spring.observation.DefaultHookObservationConvention;
import dev.conch.spring.observation.DefaultLeadershipObservationConvention;
import dev.conch.spring.observation.HookObservationContext;
import dev.conch.spring.observation.HookObservationConvention;
import dev.conch.spring.observation.LeadershipObservationContext;
import dev.conch.spring.observation.LeadershipObservationConvention;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;

/**
 * Observes each term of leadership ({@code conch.leadership}: started when this instance acquires
 * an office, stopped when it loses it) and each {@code @OnLeadership} call ({@code conch.hook}, a
 * child of its term). A hook's observation is the current one on the hook's thread while the hook
 * runs, so a tracer puts its span in the MDC of the hook's log lines.
 */
final class ConchObservations implements LeadershipObserver {

  private final ObservationRegistry registry;

  private final LeadershipObservationConvention leadershipConvention;

  private final HookObservationConvention hookConvention;

  private final Map<String, Term> terms = new ConcurrentHashMap<>();

  /**
   * Observations in the application's {@code ObservationRegistry}, named by its convention beans or
   * the defaults; null when it has no registry, or a no-op one.
   */
  static @Nullable LeadershipObserver of(BeanFactory beanFactory) {
    ObservationRegistry registry =
        beanFactory.getBeanProvider(ObservationRegistry.class).getIfUnique();
    if (registry == null || registry.isNoop()) {
      return null;
    }
    return new ConchObservations(
        registry,
        beanFactory
            .getBeanProvider(LeadershipObservationConvention.class)
            .getIfUnique(DefaultLeadershipObservationConvention::new),
        beanFactory
            .getBeanProvider(HookObservationConvention.class)
            .getIfUnique(DefaultHookObservationConvention::new));
  }

  /** Observations in {@code registry} named by the default conventions. */
  ConchObservations(ObservationRegistry registry) {
    this(
        registry,
        new DefaultLeadershipObservationConvention(),
        new DefaultHookObservationConvention());
  }

  /** Observations in {@code registry} named by {@code leadership} and {@code hook}. */
  ConchObservations(
      ObservationRegistry registry,
      LeadershipObservationConvention leadership,
      HookObservationConvention hook) {
    this.registry = registry;
    this.leadershipConvention = leadership;
    this.hookConvention = hook;
  }

  @Override
  public LeadershipHandler term(Election election) {
    return this.terms.computeIfAbsent(election.office(), office -> new Term());
  }

  @Override
  public LeadershipHandler hook(String office, String name, Transition on, LeadershipHandler hook) {
    return new Hook(this.terms.computeIfAbsent(office, o -> new Term()), name, on, hook);
  }

  /** The observation of the current term of one office. */
  private final class Term implements LeadershipHandler {

    // The core calls lost once for each acquired, before the next acquired.
    private volatile @Nullable Observation current;

    @Override
    public void acquired(Leadership leadership) {
      this.current =
          Observation.createNotStarted(
                  null,
                  ConchObservations.this.leadershipConvention,
                  () -> new LeadershipObservationContext(leadership),
                  ConchObservations.this.registry)
              .start();
    }

    @Override
    public void lost(Leadership leadership, LossReason reason) {
      Observation observation = this.current;
      this.current = null;
      if (observation == null) {
        return;
      }
      if (observation.getContext() instanceof LeadershipObservationContext context) {
        context.setReason(reason);
      }
      observation.stop();
    }

    @Nullable Observation current() {
      return this.current;
    }
  }

  /** One {@code @OnLeadership} method, each call observed on its transition. */
  private final class Hook implements LeadershipHandler {

    private final Term term;

    private final String name;

    private final Transition on;

    private final LeadershipHandler hook;

    Hook(Term term, String name, Transition on, LeadershipHandler hook) {
      this.term = term;
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
              null,
              ConchObservations.this.hookConvention,
              () -> new HookObservationContext(this.name, this.on, leadership, reason),
              ConchObservations.this.registry)
          .parentObservation(this.term.current());
    }

    @Override
    public String toString() {
      return this.hook.toString();
    }
  }
}
