package dev.conch.spring.fence;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The field of a JPA entity that carries the fencing token of the term that writes it: the fence
 * column (docs/fencing.md, "The fence column"), whose trigger refuses a stale or missing token in
 * the database itself. With {@link FenceTokenEntityListener} on the entity, the field is filled on
 * every persist and update with the token of the term the current transaction fenced
 * ({@code @Fenced}, {@link TransactionFence#fence()}); a value set by the code is kept.
 *
 * <pre>{@code
 * @Entity
 * @EntityListeners(FenceTokenEntityListener.class)
 * class Invoice {
 *   @FenceToken("billing") private Long fenceToken;   // column fence_token, with the trigger
 *   ...
 * }
 * }</pre>
 *
 * <p>The field is a {@code Long} (or {@code long}). Outside a fenced transaction it is left as it
 * is, and the trigger refuses a row without a token.
 */
@Target(ElementType.FIELD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface FenceToken {

  /**
   * The office whose token fills the field; empty when the transaction fences exactly one office
   * (the usual case).
   */
  String value() default "";
}
