package dev.conch.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.core.annotation.AliasFor;

/**
 * Binds a {@link org.springframework.context.Lifecycle Lifecycle} bean (a message listener
 * container, an integration endpoint, any {@link org.springframework.context.SmartLifecycle
 * SmartLifecycle}) to an office: it does not start with the context, it is started when this
 * instance wins the office and stopped when it stops leading, within the office's stop timeout
 * ({@code conch.stop-timeout}, {@code conch.offices.<office>.stop-timeout}).
 *
 * <pre>{@code
 * @Bean
 * @LeaderLifecycle("orders")
 * ConcurrentMessageListenerContainer<String, Order> ordersContainer(...) { ... }
 * }</pre>
 *
 * <p>On the bean's class or on its {@code @Bean} method. The same binding by property: {@code
 * conch.offices.orders.lifecycle-beans=ordersContainer}. A bean that would start itself ({@code
 * isAutoStartup()} true) gets {@code setAutoStartup(false)}; one without that setter fails startup.
 * A stop that overruns the stop timeout is logged as a possible overlap with the next leader.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface LeaderLifecycle {

  /** Alias for {@link #office()}. */
  @AliasFor("office")
  String value() default "";

  /**
   * The office; empty for the default office ({@code conch.office}, else {@code
   * spring.application.name}). Placeholders such as {@code ${orders.office}} are resolved.
   */
  @AliasFor("value")
  String office() default "";
}
