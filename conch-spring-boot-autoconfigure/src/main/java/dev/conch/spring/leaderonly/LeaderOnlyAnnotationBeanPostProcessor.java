package dev.conch.spring.leaderonly;

import dev.conch.Leadership;
import dev.conch.spring.Elections;
import dev.conch.spring.observation.LeaderOnlyObservationContext;
import dev.conch.spring.observation.LeaderOnlyObservationConvention;
import dev.conch.spring.support.AnnotatedMethodAdvisingPostProcessor;
import dev.conch.spring.support.RequiredOffices;
import java.lang.reflect.Method;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.scheduling.annotation.Async;

/**
 * Proxies every bean that has {@link LeaderOnly @LeaderOnly} methods (or adds the advice to its
 * existing proxy, ahead of the other advisors, so that no transaction opens for a skipped call),
 * refuses methods a proxy cannot guard, and names the offices they need.
 *
 * <p>It runs before the {@code @Scheduled} post-processor, so that scheduled calls go through the
 * proxy.
 */
public final class LeaderOnlyAnnotationBeanPostProcessor
    extends AnnotatedMethodAdvisingPostProcessor<LeaderOnly> implements RequiredOffices {

  private final List<Requirement> offices = new CopyOnWriteArrayList<>();

  private @Nullable LeaderOnlyJobs jobs;

  /** The guard of the methods, shared with {@link LeaderOnlyTasks}: one path for both. */
  private volatile @Nullable LeaderOnlyMethodInterceptor interceptor;

  /** A post-processor with class-based proxies, ordered before {@code @Scheduled}'s. */
  public LeaderOnlyAnnotationBeanPostProcessor() {
    super(LeaderOnly.class, true);
    setOrder(Ordered.LOWEST_PRECEDENCE - 1);
  }

  @Override
  public void setBeanFactory(BeanFactory beanFactory) {
    super.setBeanFactory(beanFactory);
    Listeners listeners = new Listeners(beanFactory);
    this.jobs = LeaderOnlyJobsFactory.jobs(beanFactory);
    LeaderOnlyMethodInterceptor interceptor =
        new LeaderOnlyMethodInterceptor(
            () -> beanFactory.getBean(Elections.class),
            office -> resolve(beanFactory, office),
            listeners,
            listeners,
            this.jobs);
    this.interceptor = interceptor;
    advise(interceptor);
  }

  @Override
  protected void proxied(Class<?> targetClass, Object proxy) {
    LeaderOnlyJobs known = this.jobs;
    if (known != null) {
      for (LeaderOnlyJob job : known.all()) {
        if (job.method().getDeclaringClass().isAssignableFrom(targetClass)) {
          known.bean(job.method(), proxy);
        }
      }
    }
  }

  /**
   * The {@code @Scheduled} jobs among the {@code @LeaderOnly} methods: their records, misfire
   * recovery and last runs.
   */
  public LeaderOnlyJobs jobs() {
    return Objects.requireNonNull(this.jobs, "no bean factory yet");
  }

  /** The guard of the methods, once the bean factory is set. */
  LeaderOnlyMethodInterceptor interceptor() {
    LeaderOnlyMethodInterceptor set = this.interceptor;
    if (set == null) {
      throw new IllegalStateException("LeaderOnlyAnnotationBeanPostProcessor has no bean factory");
    }
    return set;
  }

  @Override
  public Collection<Requirement> offices() {
    return List.copyOf(this.offices);
  }

  /** Refuses what a proxy cannot guard and records the method's office and job. */
  @Override
  protected void check(
      Method method, LeaderOnly annotation, Class<?> targetClass, String beanName) {
    String unproxyable = unproxyable(method);
    if (unproxyable != null) {
      throw new InvalidLeaderOnlyMethodException(
          method,
          "is " + unproxyable + ", so no proxy can intercept it and it would run on every instance",
          "Make it neither private, final nor static.");
    }
    if (AnnotatedElementUtils.hasAnnotation(method, Async.class)
        || AnnotatedElementUtils.hasAnnotation(targetClass, Async.class)) {
      throw new InvalidLeaderOnlyMethodException(
          method,
          "is also @Async: leadership would be checked on the caller's thread and the"
              + " work done on another, possibly after the term ended",
          "Remove @Async, or call the @LeaderOnly method from inside the @Async one.");
    }
    String office = resolve(this.beanFactory, annotation.office());
    LeaderOnlyJob job =
        LeaderOnlyJobsFactory.job(method, annotation, office, v -> resolve(this.beanFactory, v));
    if (job != null && this.jobs != null) {
      this.jobs.register(job);
    }
    this.offices.add(
        new Requirement(office, "@LeaderOnly " + beanName + "." + method.getName() + "()"));
  }

  /**
   * What watches the calls, looked up on first use. The starter's own record of each call, run or
   * skipped, is its observation when the application has an {@code ObservationRegistry} (named by
   * its {@link LeaderOnlyObservationConvention} bean, if it has one): with Boot's metrics, the
   * meter handler makes the {@code conch.leaderonly} timer of it. Then every {@link
   * LeaderOnlyInvocations} bean.
   */
  private static final class Listeners implements LeaderOnlyInvocations, LeaderOnlyObserver {

    private final BeanFactory beanFactory;

    private volatile @Nullable LeaderOnlyObserver observer;

    private volatile @Nullable List<LeaderOnlyInvocations> all;

    Listeners(BeanFactory beanFactory) {
      this.beanFactory = beanFactory;
    }

    @Override
    public void skipped(LeaderOnlyObservationContext context) {
      observer().skipped(context);
    }

    @Override
    public @Nullable Object run(LeaderOnlyObservationContext context, Call call) throws Throwable {
      return observer().run(context, call);
    }

    @Override
    public void run(String office, String method) {
      all().forEach(listener -> listener.run(office, method));
    }

    @Override
    public void skipped(String office, String method) {
      all().forEach(listener -> listener.skipped(office, method));
    }

    @Override
    public void ended(String office, String method) {
      all().forEach(listener -> listener.ended(office, method));
    }

    /** Each listener wraps the next: the first bean is the outermost. */
    @Override
    public @Nullable Object proceed(Leadership leadership, String method, Call call)
        throws Throwable {
      Call chained = call;
      List<LeaderOnlyInvocations> listeners = all();
      for (int i = listeners.size() - 1; i >= 0; i--) {
        LeaderOnlyInvocations listener = listeners.get(i);
        Call inner = chained;
        chained = () -> listener.proceed(leadership, method, inner);
      }
      return chained.proceed();
    }

    private LeaderOnlyObserver observer() {
      LeaderOnlyObserver found = this.observer;
      if (found == null) {
        found = observerOf(this.beanFactory);
        this.observer = found;
      }
      return found;
    }

    private List<LeaderOnlyInvocations> all() {
      List<LeaderOnlyInvocations> listeners = this.all;
      if (listeners == null) {
        listeners =
            (this.beanFactory instanceof ListableBeanFactory listable)
                ? List.copyOf(listable.getBeansOfType(LeaderOnlyInvocations.class).values())
                : List.of();
        this.all = listeners;
      }
      return listeners;
    }

    /** The observations the observation auto-configuration made, else none. */
    private static LeaderOnlyObserver observerOf(BeanFactory beanFactory) {
      LeaderOnlyObservations observations =
          beanFactory.getBeanProvider(LeaderOnlyObservations.class).getIfUnique();
      return (observations != null && observations.active())
          ? observations
          : LeaderOnlyObserver.NONE;
    }
  }
}
