package dev.conch.spring.support;

import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.context.SmartLifecycle;
import org.springframework.util.ClassUtils;

/**
 * Ahead of time, registers the {@code setAutoStartup(boolean)} method of each {@link
 * SmartLifecycle} bean type for reflective invocation: a bean bound to an office gets {@code
 * setAutoStartup(false)} by reflection ({@link LeaderLifecycleBeanPostProcessor}), which a native
 * image allows only for the methods it was told of. Spring has no interface for that setter (JMS,
 * Kafka, AMQP and Integration each declare their own), so it is found by name.
 *
 * <p>Every such bean, not only the bound ones: {@code conch.offices.<office>.lifecycle-beans} is
 * read when the application runs, and may name other beans than it did at build time. It is a bean
 * of conch's lifecycle auto-configuration, so applications without it get no hints from it.
 */
public final class LeaderLifecycleBeanRegistrationAotProcessor
    implements BeanRegistrationAotProcessor {

  @Override
  public @Nullable BeanRegistrationAotContribution processAheadOfTime(
      RegisteredBean registeredBean) {
    Class<?> type = ClassUtils.getUserClass(registeredBean.getBeanClass());
    Method setter = LeaderLifecycleBeanPostProcessor.autoStartupSetter(type);
    if (setter == null) {
      return null;
    }
    return (generationContext, code) ->
        generationContext
            .getRuntimeHints()
            .reflection()
            .registerMethod(setter, ExecutableMode.INVOKE);
  }
}
