package dev.conch.spring;

import dev.conch.Election;
import dev.conch.Leadership;
import dev.conch.spring.observation.LeaderOnlyObservationContext;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * Lets a {@link LeaderOnly @LeaderOnly} method run only while this instance leads its office, with
 * {@link CurrentLeadership} set to the term for the duration of the call; otherwise skips it.
 */
final class LeaderOnlyMethodInterceptor implements MethodInterceptor {

  private static final Log logger = LogFactory.getLog(LeaderOnlyMethodInterceptor.class);

  private final Supplier<Elections> elections;

  private final Function<String, String> resolver;

  private final LeaderOnlyObserver observer;

  private final LeaderOnlyInvocations invocations;

  private final LeaderOnlyJobs jobs;

  private final Map<Method, Target> targets = new ConcurrentHashMap<>();

  /**
   * @param elections the elections, looked up on first use
   * @param resolver resolves placeholders in the office name
   * @param observer records each call, run or skipped (the starter's observation or meter)
   * @param invocations told of each call that ran or was skipped
   * @param jobs claims and records the firings of {@code @Scheduled} methods
   */
  LeaderOnlyMethodInterceptor(
      Supplier<Elections> elections,
      Function<String, String> resolver,
      LeaderOnlyObserver observer,
      LeaderOnlyInvocations invocations,
      LeaderOnlyJobs jobs) {
    this.elections = elections;
    this.resolver = resolver;
    this.observer = observer;
    this.invocations = invocations;
    this.jobs = jobs;
  }

  @Override
  public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
    Target target = target(invocation);
    Optional<Election> election = election(target);
    Optional<Leadership> term = election.flatMap(Election::leadership);
    // A scheduled job's firing runs only once claimed in its record (null: refused, skip it).
    JobFiring firing = term.isPresent() ? this.jobs.claim(term.get(), target.method()) : null;
    if (firing == null) {
      this.jobs.skipped(officeOf(target), target.method(), term.isPresent());
      if (logger.isDebugEnabled()) {
        logger.debug(
            "Skipped "
                + target.description()
                + (term.isPresent()
                    ? ": its firing was not claimed in office '"
                    : ": this instance does not lead office '")
                + officeOf(target)
                + "'");
      }
      this.observer.skipped(target.context(officeOf(target), null));
      this.invocations.skipped(officeOf(target), target.description());
      return skippedResult(invocation.getMethod().getReturnType());
    }
    this.invocations.run(term.get().office(), target.description());
    CurrentLeadership.Invocation previous = CurrentLeadership.enter(election.get(), term.get());
    try {
      return this.observer.run(
          target.context(term.get().office(), term.get()),
          () ->
              firing.run(
                  () ->
                      this.invocations.proceed(
                          term.get(), target.description(), invocation::proceed)));
    } finally {
      CurrentLeadership.exit(previous);
    }
  }

  private Optional<Election> election(Target target) {
    Elections all = this.elections.get();
    String office = target.office().isEmpty() ? all.defaultOffice().orElse("") : target.office();
    return office.isEmpty() ? Optional.empty() : all.find(office);
  }

  private String officeOf(Target target) {
    return target.office().isEmpty()
        ? this.elections.get().defaultOffice().orElse("(default)")
        : target.office();
  }

  private Target target(MethodInvocation invocation) {
    Method method = invocation.getMethod();
    Object bean = invocation.getThis();
    Class<?> targetClass = (bean != null) ? AopUtils.getTargetClass(bean) : null;
    return this.targets.computeIfAbsent(
        method,
        m -> {
          Method specific = AopUtils.getMostSpecificMethod(m, targetClass);
          LeaderOnly annotation =
              AnnotatedElementUtils.findMergedAnnotation(specific, LeaderOnly.class);
          String office = (annotation != null) ? this.resolver.apply(annotation.office()) : "";
          return new Target(
              office,
              LeaderOnlyInvocations.methodName(specific),
              (targetClass != null) ? targetClass : specific.getDeclaringClass(),
              specific);
        });
  }

  private static @Nullable Object skippedResult(Class<?> type) {
    if (type == Optional.class) {
      return Optional.empty();
    }
    if (!type.isPrimitive() || type == void.class) {
      return null;
    }
    if (type == boolean.class) {
      return false;
    }
    if (type == char.class) {
      return '\0';
    }
    if (type == long.class) {
      return 0L;
    }
    if (type == float.class) {
      return 0f;
    }
    if (type == double.class) {
      return 0d;
    }
    if (type == byte.class) {
      return (byte) 0;
    }
    if (type == short.class) {
      return (short) 0;
    }
    return 0;
  }

  /**
   * The office of one method (empty: the default office), how logs name it, and the class and
   * method its observations name.
   */
  private record Target(String office, String description, Class<?> targetClass, Method method) {

    LeaderOnlyObservationContext context(String office, @Nullable Leadership term) {
      return new LeaderOnlyObservationContext(this.targetClass, this.method, office, term);
    }
  }
}
