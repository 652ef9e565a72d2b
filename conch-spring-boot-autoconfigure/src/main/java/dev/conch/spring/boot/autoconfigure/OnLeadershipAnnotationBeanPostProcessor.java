package dev.conch.spring.boot.autoconfigure;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.EmbeddedValueResolverAware;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.annotation.OrderUtils;
import org.springframework.util.StringValueResolver;

/**
 * Finds {@link OnLeadership @OnLeadership} methods on every bean as it is initialized; the
 * lifecycle registers them with their elections before campaigning starts. Beans created after that
 * (lazy ones) are not seen.
 */
final class OnLeadershipAnnotationBeanPostProcessor
    implements BeanPostProcessor, EmbeddedValueResolverAware {

  private final List<LeadershipMethod> methods = new CopyOnWriteArrayList<>();

  private final Set<Class<?>> withoutAnnotations = ConcurrentHashMap.newKeySet();

  private final AtomicLong sequence = new AtomicLong();

  private @Nullable StringValueResolver resolver;

  @Override
  public void setEmbeddedValueResolver(StringValueResolver resolver) {
    this.resolver = resolver;
  }

  @Override
  public Object postProcessAfterInitialization(Object bean, String beanName) {
    if (bean instanceof AopInfrastructureBean) {
      return bean;
    }
    Class<?> targetClass = AopProxyUtils.ultimateTargetClass(bean);
    if (this.withoutAnnotations.contains(targetClass)
        || !AnnotationUtils.isCandidateClass(targetClass, OnLeadership.class)) {
      return bean;
    }
    Map<Method, OnLeadership> annotated =
        MethodIntrospector.selectMethods(
            targetClass,
            (MethodIntrospector.MetadataLookup<OnLeadership>)
                method -> AnnotatedElementUtils.findMergedAnnotation(method, OnLeadership.class));
    if (annotated.isEmpty()) {
      this.withoutAnnotations.add(targetClass);
      return bean;
    }
    annotated.forEach(
        (method, annotation) ->
            this.methods.add(
                new LeadershipMethod(
                    bean,
                    beanName,
                    AopUtils.selectInvocableMethod(method, bean.getClass()),
                    resolve(annotation.office()),
                    annotation.on(),
                    order(method, bean, targetClass),
                    this.sequence.incrementAndGet())));
    return bean;
  }

  /** Every method found so far. */
  List<LeadershipMethod> methods() {
    return List.copyOf(this.methods);
  }

  private String resolve(String office) {
    String resolved = (this.resolver != null) ? this.resolver.resolveStringValue(office) : office;
    return (resolved != null) ? resolved : "";
  }

  private static int order(Method method, Object bean, Class<?> targetClass) {
    Integer order = OrderUtils.getOrder(method);
    if (order != null) {
      return order;
    }
    if (bean instanceof Ordered ordered) {
      return ordered.getOrder();
    }
    return OrderUtils.getOrder(targetClass, Ordered.LOWEST_PRECEDENCE);
  }
}
