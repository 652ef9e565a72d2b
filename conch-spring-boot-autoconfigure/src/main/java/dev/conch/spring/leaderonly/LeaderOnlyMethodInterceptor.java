package dev.conch.spring.leaderonly;

import dev.conch.Election;
import dev.conch.Leadership;
import dev.conch.spring.Elections;
import dev.conch.spring.observation.LeaderOnlyObservationContext;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
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
 * Lets a {@link LeaderOnly @LeaderOnly} method (or a {@link LeaderOnlyTasks} task, through {@link
 * #guard}) run only while this instance leads its office, with {@link CurrentLeadership} set to the
 * term for the duration of the call; otherwise skips it.
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
    return guard(
        target.office(),
        target.description(),
        target.method(),
        target::context,
        invocation::proceed,
        skippedResult(invocation.getMethod().getReturnType()));
  }

  /**
   * One leader-only call, of a method or of a {@link LeaderOnlyTasks task}: the one path both go
   * through. Runs {@code call} while this instance leads {@code office}, with {@link
   * CurrentLeadership} set and the call observed; otherwise records the skip.
   *
   * @param office the office, empty for the default office
   * @param name how logs and the {@link LeaderOnlyInvocations} beans name the call
   * @param method the method called, whose {@code @Scheduled} firings may be recorded jobs; null
   *     for a task, which is never one
   * @param contexts the observation context of the call, in an office and a term (null: skipped)
   * @param call the call
   * @param skipped what a skipped call returns
   * @return what {@code call} returned, or {@code skipped}
   */
  @Nullable Object guard(
      String office,
      String name,
      @Nullable Method method,
      BiFunction<String, @Nullable Leadership, LeaderOnlyObservationContext> contexts,
      LeaderOnlyInvocations.Call call,
      @Nullable Object skipped)
      throws Throwable {
    Optional<Election> election = election(office);
    Optional<Leadership> term = election.flatMap(Election::leadership);
    // The call is the term's work from here on: a stop of the term waits for it (or interrupts it
    // at its bound) before the lose hooks run and the key goes; one that began already refuses it.
    Optional<Leadership.Work> registered = term.flatMap(t -> t.startWork(name));
    if (registered.isEmpty()) {
      return skip(office, name, method, contexts, skipped, false);
    }
    boolean ran = false;
    try (Leadership.Work work = registered.get()) {
      // A scheduled job's firing runs only once claimed in its record (null: refused, skip it).
      JobFiring firing =
          (method == null) ? JobFiring.UNRECORDED : this.jobs.claim(term.get(), method);
      if (firing == null) {
        return skip(office, name, method, contexts, skipped, true);
      }
      ran = true;
      this.invocations.run(term.get().office(), name);
      CurrentLeadership.Invocation previous = CurrentLeadership.enter(election.get(), term.get());
      try {
        return this.observer.run(
            contexts.apply(term.get().office(), term.get()),
            () ->
                firing.run(
                    () -> this.invocations.proceed(term.get(), name, call), work::interrupted));
      } finally {
        CurrentLeadership.exit(previous);
      }
    } finally {
      if (registered.get().interrupted()) {
        // The stop's interrupt is for this call alone, not for what its thread runs next.
        Thread.interrupted();
      }
      if (ran) {
        ended(term.get().office(), name);
      }
    }
  }

  /**
   * Tells the {@link LeaderOnlyInvocations} beans that a run ended, once all of it is done: its
   * record written, its observation stopped, its term no longer waiting for it. A listener's
   * failure is logged: it must not replace what the call returned or threw.
   */
  private void ended(String office, String name) {
    try {
      this.invocations.ended(office, name);
    } catch (RuntimeException ex) {
      logger.warn("A listener of " + name + "'s end failed", ex);
    }
  }

  /**
   * Records a call that did not run: this instance does not lead the office ({@code leading}
   * false), or the firing's claim was refused (already counted by the claim).
   */
  private @Nullable Object skip(
      String office,
      String name,
      @Nullable Method method,
      BiFunction<String, @Nullable Leadership, LeaderOnlyObservationContext> contexts,
      @Nullable Object skipped,
      boolean leading) {
    if (method != null) {
      this.jobs.skipped(officeOf(office), method, leading);
    }
    if (logger.isDebugEnabled()) {
      logger.debug(
          "Skipped "
              + name
              + (leading
                  ? ": its firing was not claimed in office '"
                  : ": this instance does not lead office '")
              + officeOf(office)
              + "'");
    }
    this.observer.skipped(contexts.apply(officeOf(office), null));
    this.invocations.skipped(officeOf(office), name);
    return skipped;
  }

  /** The elections, for what a task checks before its call. */
  Elections elections() {
    return this.elections.get();
  }

  private Optional<Election> election(String office) {
    Elections all = this.elections.get();
    String named = office.isEmpty() ? all.defaultOffice().orElse("") : office;
    return named.isEmpty() ? Optional.empty() : all.find(named);
  }

  private String officeOf(String office) {
    return office.isEmpty() ? this.elections.get().defaultOffice().orElse("(default)") : office;
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
