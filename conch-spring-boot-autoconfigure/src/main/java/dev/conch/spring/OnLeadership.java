package dev.conch.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.aot.hint.annotation.Reflective;

/**
 * Marks a method of a bean as an acquire or lose hook of an office: it runs synchronously on the
 * transition, on the election's hook thread, bounded by the hook timeout ({@code
 * conch.hook-timeout}).
 *
 * <pre>{@code
 * @OnLeadership
 * void start(Leadership leadership) { ... }
 *
 * @OnLeadership(office = "billing", on = Transition.LOST)
 * void stop(Leadership leadership, LossReason reason) { ... }
 * }</pre>
 *
 * <p>The method may take a {@link dev.conch.Leadership} (office, fencing token, lease, holder) and,
 * when {@link Transition#LOST}, a {@link dev.conch.LossReason}; any of them, in any order, or none.
 * An {@link Transition#ACQUIRED} method that throws or overruns the timeout makes this instance
 * step down, back off and campaign again; {@link Transition#LOST} methods run before the office is
 * released (and before the lease could expire), their failures logged and never blocking. Methods
 * of one office run in {@link org.springframework.core.annotation.Order @Order} (of the method,
 * else of the bean), on both transitions. An office named here that is not configured is campaigned
 * for with the {@code conch.*} defaults.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective
public @interface OnLeadership {

  /**
   * The office; empty for the default office ({@code conch.office}, else {@code
   * spring.application.name}). Placeholders such as {@code ${billing.office}} are resolved.
   */
  String office() default "";

  /** The transition the method runs on. */
  Transition on() default Transition.ACQUIRED;

  /** A change of leadership of this instance. */
  enum Transition {
    /** This instance won the office; runs before it is reported as leading. */
    ACQUIRED,
    /** This instance stops leading the office, for any reason; runs before it is released. */
    LOST
  }
}
