package dev.conch.spring.fence;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.aot.hint.annotation.Reflective;
import org.springframework.core.annotation.AliasFor;

/**
 * Fences the transaction of a {@code @Transactional} method in the application's own database: on
 * entry, inside the transaction and on its connection, the office's row in the fence table is
 * checked against this instance's fencing token (see {@link TransactionFence#fence(String)}). A
 * stale token throws {@link dev.conch.jdbc.StaleTokenException} and the transaction rolls back;
 * without a transaction, or while this instance does not lead the office, the call fails at once
 * with {@link FenceUnavailableException} and the method does not run.
 *
 * <pre>{@code
 * @Transactional
 * @Fenced                      // the office of the running @LeaderOnly term, else the default
 * public void store(Report report) {
 *   jdbcClient.sql("INSERT INTO report ...").update();   // commits only if no newer leader fenced
 * }
 * }</pre>
 *
 * <p>Only the writes of this transaction are protected, and only against other writers that go
 * through the fence. The fence runs at the start of the method: a transaction that should fence as
 * late as possible (just before its writes) calls {@link TransactionFence#fence()} there instead.
 *
 * <p>The method must be transactional itself ({@code @Transactional} on it or its class, with a
 * propagation that runs in a transaction); startup fails otherwise. It is intercepted by a proxy,
 * inside the transaction interceptor, so it must be overridable and called through the bean.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective
public @interface Fenced {

  /** Alias for {@link #office()}. */
  @AliasFor("office")
  String value() default "";

  /**
   * The office whose token fences the transaction; empty for the office of the running
   * {@code @LeaderOnly} term, else the default office. Placeholders such as {@code ${jobs.office}}
   * are resolved.
   */
  @AliasFor("value")
  String office() default "";
}
