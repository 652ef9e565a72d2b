package dev.conch.spring.leaderonly;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.aot.hint.annotation.Reflective;
import org.springframework.core.annotation.AliasFor;

/**
 * Runs a bean method only while this instance leads an office; anywhere else the call is skipped:
 * the method is not invoked, the caller gets {@code null} (zero, {@code false} or an empty {@code
 * Optional} for such return types), the skip is logged at DEBUG and recorded as the outcome {@code
 * SKIPPED} of the {@code conch.leaderonly} observation (and so of its timer, with Boot's metrics).
 *
 * <pre>{@code
 * @Scheduled(fixedRate = 60_000)
 * @LeaderOnly
 * void report() { ... }                         // default office
 *
 * @Scheduled(cron = "0 0 * * * *")
 * @LeaderOnly("invoices")                        // an office of its own: jobs spread over instances
 * void invoices() {
 *   Leadership term = CurrentLeadership.get();  // office, token, isValid()
 *   for (Invoice invoice : due()) {
 *     if (!term.isValid()) {
 *       return;                                 // the term ended: a successor may run this job now
 *     }
 *     CurrentLeadership.guardedPut("/invoices/" + invoice.id(), "sent");  // fenced by the token
 *   }
 * }
 * }</pre>
 *
 * <p>An office named here that is not configured is campaigned for with the {@code conch.*}
 * defaults, on the shared session and lease (one election per office), so that each job can have
 * its own office and several jobs spread over several instances. A running invocation is not
 * interrupted when the term ends: it finds out through {@link CurrentLeadership}.
 *
 * <p>The method is intercepted by a proxy, so it must be overridable (not {@code private}, {@code
 * final} or {@code static}) and called through the bean (a scheduler, another bean), not from
 * within its own class. It cannot also be {@code @Async}: the check would happen on the caller's
 * thread and the work on another, after the term may have ended.
 *
 * <p>On a method Spring schedules ({@code @Scheduled}, with {@code @EnableScheduling}) each firing
 * that runs is recorded under the office (in etcd, outside the election's keys, written with the
 * term's token): a new leader finds the firings that came while the office was vacant and applies
 * {@link #misfire()}. A firing is claimed before it runs, so two terms never both run it (not even
 * across a hand-over between instances whose clocks differ); one whose term ended while it ran is
 * reported as interrupted by the next leader, and not run again. With {@code misfire = NONE}, and
 * on a method Spring does not schedule, nothing of this is done.
 *
 * <p>Annotated methods are registered for reflection in a native image ({@link Reflective}), and
 * their proxies are generated ahead of time with the rest of the application's.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective
public @interface LeaderOnly {

  /** Alias for {@link #office()}. */
  @AliasFor("office")
  String value() default "";

  /**
   * The office; empty for the default office ({@code conch.office}, else {@code
   * spring.application.name}). Placeholders such as {@code ${jobs.office}} are resolved.
   */
  @AliasFor("value")
  String office() default "";

  /**
   * What a new leader does with the firings of this {@code @Scheduled} method that nobody ran:
   * {@link Misfire#SKIP} (the default), {@link Misfire#RUN_ONCE}, or {@link Misfire#NONE} (its
   * firings are not recorded, nor claimed). {@code RUN_ONCE} on a method that Spring does not
   * schedule exactly once ({@code cron}, {@code fixedRate} or {@code fixedDelay}) fails startup; on
   * such a method {@code SKIP} records nothing.
   */
  Misfire misfire() default Misfire.SKIP;

  /**
   * How old a missed firing may be, when the new leader finds it, to be run by {@link
   * Misfire#RUN_ONCE}: a duration of zero or more ({@code 10m}, {@code PT10M}, or milliseconds);
   * older ones are skipped and logged. Placeholders are resolved. Default one hour.
   */
  String misfireThreshold() default "1h";
}
