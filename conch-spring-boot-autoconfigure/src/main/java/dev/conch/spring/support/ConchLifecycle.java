package dev.conch.spring.support;

import dev.conch.Election;
import dev.conch.InvalidArgumentException;
import dev.conch.LeadershipHandler;
import dev.conch.spring.Elections;
import dev.conch.spring.OnLeadership.Transition;
import dev.conch.spring.observation.HookObservationConvention;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;

/**
 * Joins every election once the context has started, and resigns from each when it stops, so that
 * another instance takes over at once instead of after the lease TTL. Before that, it gives each
 * election its {@code @OnLeadership} methods and its event publisher.
 *
 * <p>Its phase makes it start after the web server and stop before it: this instance campaigns only
 * when it can serve, and hands its offices over before it drains requests. Resigning runs the lose
 * hooks while every bean is still alive; the session and the etcd client are closed later, when the
 * context destroys its beans. Offices are resigned in parallel, and the context waits for them at
 * most {@code spring.lifecycle.timeout-per-shutdown-phase}. A context stopped and started again
 * (paused, restarted) campaigns again for every office.
 */
public final class ConchLifecycle extends PhasedLifecycle implements SmartInitializingSingleton {

  /** Later than the web server's start and graceful shutdown phases. */
  public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 512;

  /** How long a resignation may take to reach the application's listeners on shutdown. */
  private static final Duration DELIVERY_TIMEOUT = Duration.ofSeconds(2);

  private static final Log logger = LogFactory.getLog(ConchLifecycle.class);

  private final Elections elections;

  private final OnLeadershipAnnotationBeanPostProcessor methods;

  private final ApplicationEventPublisher eventPublisher;

  private final Supplier<List<RequiredOffices>> requiredOffices;

  private final Supplier<@Nullable LeadershipObserver> observer;

  private final Map<Election, ElectionEventPublisher> publishers = new ConcurrentHashMap<>();

  // Guarded by this.
  private boolean wired;

  ConchLifecycle(
      Elections elections,
      OnLeadershipAnnotationBeanPostProcessor methods,
      ApplicationEventPublisher eventPublisher) {
    this(elections, methods, eventPublisher, List.of());
  }

  ConchLifecycle(
      Elections elections,
      OnLeadershipAnnotationBeanPostProcessor methods,
      ApplicationEventPublisher eventPublisher,
      List<RequiredOffices> requiredOffices) {
    this(elections, methods, eventPublisher, requiredOffices, null);
  }

  ConchLifecycle(
      Elections elections,
      OnLeadershipAnnotationBeanPostProcessor methods,
      ApplicationEventPublisher eventPublisher,
      List<RequiredOffices> requiredOffices,
      @Nullable LeadershipObserver observer) {
    this(elections, methods, eventPublisher, () -> requiredOffices, () -> observer);
  }

  /**
   * The lifecycle of the application's elections; the starter's auto-configuration creates it.
   *
   * @param elections the application's elections
   * @param methods the {@code @OnLeadership} methods of the application's beans
   * @param eventPublisher where the leadership events go
   * @param beanFactory where the lifecycle finds, once every singleton exists, what else needs an
   *     office ({@code @LeaderOnly} methods, {@code @LeaderLifecycle} beans) and the {@code
   *     ObservationRegistry} that observes the hooks, with the application's {@link
   *     HookObservationConvention} bean if it has one
   */
  public ConchLifecycle(
      Elections elections,
      OnLeadershipAnnotationBeanPostProcessor methods,
      ApplicationEventPublisher eventPublisher,
      BeanFactory beanFactory) {
    this(
        elections,
        methods,
        eventPublisher,
        () -> beanFactory.getBeanProvider(RequiredOffices.class).orderedStream().toList(),
        () -> ConchObservations.of(beanFactory));
  }

  private ConchLifecycle(
      Elections elections,
      OnLeadershipAnnotationBeanPostProcessor methods,
      ApplicationEventPublisher eventPublisher,
      Supplier<List<RequiredOffices>> requiredOffices,
      Supplier<@Nullable LeadershipObserver> observer) {
    super(PHASE);
    this.observer = observer;
    this.elections = elections;
    this.methods = methods;
    this.eventPublisher = eventPublisher;
    this.requiredOffices = requiredOffices;
  }

  /** Gives each election its hooks and publisher, once every singleton has been seen. */
  @Override
  public synchronized void afterSingletonsInstantiated() {
    if (this.wired) {
      return;
    }
    this.wired = true;
    Map<Election, List<LeadershipMethod>> byElection = new LinkedHashMap<>();
    for (LeadershipMethod method : this.methods.methods()) {
      Election election = this.elections.getOrCreate(officeOf(method));
      byElection.computeIfAbsent(election, e -> new ArrayList<>()).add(method);
    }
    for (RequiredOffices required : this.requiredOffices.get()) {
      for (RequiredOffices.Requirement requirement : required.offices()) {
        this.elections.getOrCreate(officeOf(requirement.office(), requirement.neededBy()));
      }
    }
    if (this.elections.all().isEmpty()) {
      throw new InvalidArgumentException(
          "conch.office",
          null,
          "an office to campaign for: set conch.office or spring.application.name, add"
              + " conch.offices.<office>.*, annotate a method with @OnLeadership, or set"
              + " conch.enabled=false");
    }
    LeadershipObserver observer = this.observer.get();
    for (Election election : this.elections.all()) {
      ElectionEventPublisher publisher = new ElectionEventPublisher(election, this.eventPublisher);
      // First: the events are published before any hook of the term runs.
      election.addHandler(publisher);
      register(election, byElection.getOrDefault(election, List.of()), observer);
      election.addListener(publisher);
      this.publishers.put(election, publisher);
    }
  }

  /**
   * Registers the methods of one office. The core runs lose hooks in the reverse order of their
   * registration, so lose methods go first and backwards: then both transitions run in
   * {@code @Order}, and every lose method runs even when a later acquire method failed.
   */
  private void register(
      Election election, List<LeadershipMethod> methods, @Nullable LeadershipObserver observer) {
    List<LeadershipMethod> handlers = new ArrayList<>();
    methods.stream()
        .filter(m -> m.on() == Transition.LOST)
        .sorted(LeadershipMethod.EXECUTION_ORDER.reversed())
        .forEach(handlers::add);
    methods.stream()
        .filter(m -> m.on() == Transition.ACQUIRED)
        .sorted(LeadershipMethod.EXECUTION_ORDER)
        .forEach(handlers::add);
    for (LeadershipMethod method : handlers) {
      election.addHandler(observed(election, method, observer));
    }
  }

  /**
   * The method observed: the observation is the current one on the hook thread the method runs on.
   */
  private LeadershipHandler observed(
      Election election, LeadershipMethod method, @Nullable LeadershipObserver observer) {
    if (observer == null) {
      return method;
    }
    return observer.hook(election.office(), method.name(), method.on(), method);
  }

  private String officeOf(LeadershipMethod method) {
    return officeOf(method.office(), method.toString());
  }

  private String officeOf(String office, String neededBy) {
    if (!office.isEmpty()) {
      return office;
    }
    return this.elections
        .defaultOffice()
        .orElseThrow(
            () ->
                new InvalidArgumentException(
                    "conch.office",
                    null,
                    "the office of "
                        + neededBy
                        + ", which names none: set conch.office or spring.application.name,"
                        + " or name the office in the annotation"));
  }

  @Override
  protected void begin() {
    // With lazy initialization this bean may have missed the callback.
    afterSingletonsInstantiated();
    for (Election election : this.elections.all()) {
      election.start();
    }
    logger.info("Campaigning for offices " + this.elections.offices());
  }

  /**
   * Resigns from every office, all at once and without a thread of its own ({@link
   * Election#resignAsync()}); calls back when every resignation has reached the listeners. The
   * context waits for the callback at most {@code spring.lifecycle.timeout-per-shutdown-phase}.
   */
  @Override
  protected void end(Runnable callback) {
    List<CompletableFuture<Void>> resignations = new ArrayList<>();
    for (Election election : this.elections.all()) {
      resignations.add(resign(election));
    }
    stops()
        .track(CompletableFuture.allOf(resignations.toArray(CompletableFuture[]::new)), callback);
  }

  private CompletableFuture<Void> resign(Election election) {
    ElectionEventPublisher publisher = this.publishers.get(election);
    long before = (publisher != null) ? publisher.resignations() : 0;
    CompletableFuture<Void> left;
    try {
      left = election.resignAsync("the application is shutting down");
    } catch (RuntimeException ex) {
      logger.warn("Resigning from " + election.office() + " failed", ex);
      return CompletableFuture.completedFuture(null);
    }
    // Not state(): it says RESIGNED from the moment a resign already under way ended the term,
    // before its lose hooks ran and its event went out. A future not yet done is a loop still in
    // the election, which posts one Resigned event before it leaves (if that was delivered already,
    // while the release still ran, the wait ends at the delivery timeout); a done one had left.
    boolean leaving = !left.isDone();
    CompletableFuture<Void> done =
        left.handle(
            (ok, error) -> {
              if (error != null) {
                logger.warn("Resigning from " + election.office() + " failed", error);
              }
              return null;
            });
    if (publisher == null || !leaving) {
      return done;
    }
    return done.thenCompose(
        (ok) ->
            publisher
                .resignationAfter(before)
                .completeOnTimeout(null, DELIVERY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
  }
}
