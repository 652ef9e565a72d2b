package dev.conch.spring;

import java.lang.reflect.Method;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;

/**
 * Ahead of time, registers each {@link OnLeadership @OnLeadership} method of a bean for reflective
 * invocation: the hooks are found and called through reflection when the application runs, which a
 * native image allows only for the methods it was told of.
 *
 * <p>The methods are looked up on the type the bean is declared with, as at run time on the bean's
 * class: a {@code @Bean} method should return the type that declares its hooks.
 */
final class OnLeadershipBeanRegistrationAotProcessor implements BeanRegistrationAotProcessor {

  @Override
  public @Nullable BeanRegistrationAotContribution processAheadOfTime(
      RegisteredBean registeredBean) {
    Class<?> beanClass = ClassUtils.getUserClass(registeredBean.getBeanClass());
    Set<Method> methods = hookMethods(beanClass);
    if (methods.isEmpty()) {
      return null;
    }
    return (generationContext, beanRegistrationCode) -> {
      ReflectionHints reflection = generationContext.getRuntimeHints().reflection();
      methods.forEach(method -> reflection.registerMethod(method, ExecutableMode.INVOKE));
    };
  }

  /** The {@code @OnLeadership} methods of {@code type}, as the post-processor finds them. */
  static Set<Method> hookMethods(Class<?> type) {
    if (!AnnotationUtils.isCandidateClass(type, OnLeadership.class)) {
      return Set.of();
    }
    return MethodIntrospector.selectMethods(
            type,
            (MethodIntrospector.MetadataLookup<OnLeadership>)
                method -> AnnotatedElementUtils.findMergedAnnotation(method, OnLeadership.class))
        .keySet();
  }
}
