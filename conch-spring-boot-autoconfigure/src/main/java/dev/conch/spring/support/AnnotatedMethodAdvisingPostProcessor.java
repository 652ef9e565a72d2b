package dev.conch.spring.support;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.aopalliance.intercept.MethodInterceptor;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;

/**
 * The one way conch advises the methods of an annotation ({@code @LeaderOnly}, {@code @Fenced}):
 * class-based proxies (or the advice added to a bean's existing proxy), each class scanned once,
 * every annotated method checked at startup before its bean is proxied, and beans without such a
 * method passed through untouched.
 *
 * @param <A> the annotation
 */
public abstract class AnnotatedMethodAdvisingPostProcessor<A extends Annotation>
    extends AbstractBeanFactoryAwareAdvisingPostProcessor {

  private final Class<A> annotation;

  /** Whether each class seen has annotated methods: each class is scanned once. */
  private final Map<Class<?>, Boolean> checked = new ConcurrentHashMap<>();

  /**
   * @param annotation the annotation whose methods are advised
   * @param beforeExistingAdvisors whether the advice goes ahead of a proxy's existing advisors
   *     (outside its transaction) or after them (inside it)
   */
  protected AnnotatedMethodAdvisingPostProcessor(
      Class<A> annotation, boolean beforeExistingAdvisors) {
    this.annotation = annotation;
    setProxyTargetClass(true);
    setBeforeExistingAdvisors(beforeExistingAdvisors);
  }

  /** Advises every annotated method with {@code interceptor}; from {@code setBeanFactory}. */
  protected final void advise(MethodInterceptor interceptor) {
    this.advisor =
        new DefaultPointcutAdvisor(
            new AnnotationMatchingPointcut(null, this.annotation, true), interceptor);
  }

  @Override
  public Object postProcessAfterInitialization(Object bean, String beanName) {
    if (bean instanceof AopInfrastructureBean) {
      return bean;
    }
    Class<?> targetClass = AopProxyUtils.ultimateTargetClass(bean);
    Boolean annotated = this.checked.get(targetClass);
    if (annotated == null) {
      annotated = scan(targetClass, beanName);
      this.checked.put(targetClass, annotated);
    }
    // Without annotated methods the pointcut matches none of them: no second scan of the
    // class's methods to find that out again (every bean of the context passes through here).
    if (!annotated) {
      return bean;
    }
    Object proxy = super.postProcessAfterInitialization(bean, beanName);
    proxied(targetClass, proxy);
    return proxy;
  }

  private boolean scan(Class<?> targetClass, String beanName) {
    if (!AnnotationUtils.isCandidateClass(targetClass, this.annotation)) {
      return false;
    }
    Map<Method, A> annotated =
        MethodIntrospector.selectMethods(
            targetClass,
            (MethodIntrospector.MetadataLookup<A>)
                method -> AnnotatedElementUtils.findMergedAnnotation(method, this.annotation));
    annotated.forEach((method, found) -> check(method, found, targetClass, beanName));
    return !annotated.isEmpty();
  }

  /**
   * Checks one annotated method of {@code targetClass} at startup, and records what it needs.
   *
   * @throws RuntimeException (an {@code InvalidMethodException}) when it cannot be advised
   */
  protected abstract void check(Method method, A found, Class<?> targetClass, String beanName);

  /** {@code targetClass}'s bean was proxied (or its proxy advised) as {@code proxy}. */
  protected void proxied(Class<?> targetClass, Object proxy) {}

  /**
   * Why no class-based proxy can intercept {@code method}, as its modifiers ({@code "private"},
   * {@code "static final"}), or null when one can.
   */
  protected static @Nullable String unproxyable(Method method) {
    int modifiers = method.getModifiers() & (Modifier.PRIVATE | Modifier.FINAL | Modifier.STATIC);
    return (modifiers != 0) ? Modifier.toString(modifiers) : null;
  }

  /** {@code value} with its {@code ${...}} placeholders resolved by {@code beanFactory}. */
  protected static String resolve(@Nullable BeanFactory beanFactory, String value) {
    if (beanFactory instanceof ConfigurableBeanFactory configurable) {
      String resolved = configurable.resolveEmbeddedValue(value);
      return (resolved != null) ? resolved : "";
    }
    return value;
  }
}
