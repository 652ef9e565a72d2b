package dev.conch.spring.support;

import dev.conch.spring.InvalidOnLeadershipMethodException;
import dev.conch.spring.OnLeadership;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.scope.ScopedObject;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.EmbeddedValueResolverAware;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.core.annotation.OrderUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringValueResolver;

/**
 * Finds {@link OnLeadership @OnLeadership} methods on every bean as it is initialized; the
 * lifecycle registers them with their elections before campaigning starts.
 *
 * <p>What it accepts, and why:
 *
 * <ul>
 *   <li>Singletons, also lazy ones ({@code @Lazy}, {@code spring.main.lazy-initialization=true}):
 *       {@link #methods()} creates the lazy singletons that declare hooks before campaigning
 *       starts, since a hook must be there the moment this instance wins (its type must show the
 *       methods: a {@code @Bean} method declared to return {@code Object} hides them until the bean
 *       exists).
 *   <li>Beans behind proxies ({@code @Transactional}, AOP): the hook is called through the proxy,
 *       so its advice applies; a method the proxy cannot pass on (not on the interface of a JDK
 *       proxy, private, or final on a class proxy) is refused.
 *   <li>Prototype and scoped beans are refused: an office's hooks are called on one instance for
 *       the life of the context, and these have many, or none outside their scope.
 *   <li>{@code @Async} methods are refused: a hook that returns before its work is done breaks
 *       failing closed (a failed acquire could not refuse leadership, a lose hook could not finish
 *       stopping the work before the lease could expire).
 * </ul>
 *
 * <p>Only singletons are held, and only by the context's own beans: nothing outlives the context.
 */
public final class OnLeadershipAnnotationBeanPostProcessor
    implements BeanPostProcessor, EmbeddedValueResolverAware, BeanFactoryAware {

  private static final Log logger =
      LogFactory.getLog(OnLeadershipAnnotationBeanPostProcessor.class);

  /** What Spring's {@code @EnableAsync} treats as asynchronous, by name (optional jars). */
  private static final List<String> ASYNC_ANNOTATIONS =
      List.of(
          "org.springframework.scheduling.annotation.Async",
          "jakarta.ejb.Asynchronous",
          "jakarta.enterprise.concurrent.Asynchronous");

  private final List<LeadershipMethod> methods = new CopyOnWriteArrayList<>();

  private final Set<Class<?>> withoutAnnotations = ConcurrentHashMap.newKeySet();

  private final AtomicLong sequence = new AtomicLong();

  private @Nullable StringValueResolver resolver;

  private @Nullable ConfigurableListableBeanFactory beanFactory;

  private volatile boolean handedOut;

  @Override
  public void setEmbeddedValueResolver(StringValueResolver resolver) {
    this.resolver = resolver;
  }

  @Override
  public void setBeanFactory(BeanFactory beanFactory) {
    if (beanFactory instanceof ConfigurableListableBeanFactory listable) {
      this.beanFactory = listable;
    }
  }

  @Override
  public Object postProcessAfterInitialization(Object bean, String beanName) {
    if (bean instanceof AopInfrastructureBean) {
      return bean;
    }
    Class<?> targetClass = AopProxyUtils.ultimateTargetClass(bean);
    Map<Method, OnLeadership> annotated = annotatedMethods(targetClass);
    if (annotated.isEmpty()) {
      return bean;
    }
    checkScope(bean, beanName, annotated.keySet().iterator().next());
    annotated.forEach(
        (method, annotation) -> {
          String description = beanName + "." + method.getName() + "()";
          checkNotAsync(method, targetClass, description);
          LeadershipMethod found =
              new LeadershipMethod(
                  bean,
                  beanName,
                  invocable(method, bean, description),
                  resolve(annotation.office()),
                  annotation.on(),
                  order(method, bean, targetClass),
                  this.sequence.incrementAndGet());
          if (this.handedOut) {
            logger.warn(
                found
                    + " was found after campaigning started and is never called: the bean was"
                    + " created late, and its declared type did not show the method");
          }
          this.methods.add(found);
        });
    return bean;
  }

  /**
   * Every method found, once the lazy singletons that declare hooks were created.
   *
   * @throws InvalidOnLeadershipMethodException when a prototype or scoped bean declares hooks
   */
  List<LeadershipMethod> methods() {
    createLazyHookBeans();
    this.handedOut = true;
    return List.copyOf(this.methods);
  }

  private void createLazyHookBeans() {
    ConfigurableListableBeanFactory factory = this.beanFactory;
    if (factory == null) {
      return;
    }
    for (String name : factory.getBeanDefinitionNames()) {
      BeanDefinition definition = factory.getMergedBeanDefinition(name);
      if (definition.isAbstract() || factory.containsSingleton(name)) {
        continue;
      }
      Class<?> type;
      try {
        type = factory.getType(name, false);
      } catch (BeansException ex) {
        continue;
      }
      if (type == null) {
        continue;
      }
      Map<Method, OnLeadership> annotated = annotatedMethods(ClassUtils.getUserClass(type));
      if (annotated.isEmpty()) {
        continue;
      }
      if (!definition.isSingleton()) {
        throw scopeRefused(name, definition.getScope(), annotated.keySet().iterator().next());
      }
      if (definition.isLazyInit()) {
        // Found by postProcessAfterInitialization as it is created.
        factory.getBean(name);
      }
    }
  }

  private Map<Method, OnLeadership> annotatedMethods(Class<?> targetClass) {
    if (this.withoutAnnotations.contains(targetClass)
        || !AnnotationUtils.isCandidateClass(targetClass, OnLeadership.class)) {
      return Map.of();
    }
    Map<Method, OnLeadership> annotated =
        MethodIntrospector.selectMethods(
            targetClass,
            (MethodIntrospector.MetadataLookup<OnLeadership>)
                method -> AnnotatedElementUtils.findMergedAnnotation(method, OnLeadership.class));
    if (annotated.isEmpty()) {
      this.withoutAnnotations.add(targetClass);
    }
    return annotated;
  }

  private void checkScope(Object bean, String beanName, Method method) {
    if (bean instanceof ScopedObject) {
      throw scopeRefused(beanName, "scoped proxy", method);
    }
    ConfigurableListableBeanFactory factory = this.beanFactory;
    if (factory != null && factory.containsBeanDefinition(beanName)) {
      BeanDefinition definition = factory.getMergedBeanDefinition(beanName);
      if (!definition.isSingleton()) {
        throw scopeRefused(beanName, definition.getScope(), method);
      }
    }
  }

  private static InvalidOnLeadershipMethodException scopeRefused(
      String beanName, @Nullable String scope, Method method) {
    return new InvalidOnLeadershipMethodException(
        beanName + "." + method.getName() + "()",
        "bean '"
            + beanName
            + "' is "
            + ((scope == null || scope.isEmpty()) ? "not a singleton" : "of scope '" + scope + "'")
            + ", and conch calls an office's hooks on one instance for the life of the context: a"
            + " prototype has a new instance for each lookup (the lose hook would stop what another"
            + " instance started), a scoped bean has none outside its scope",
        "Declare @OnLeadership methods on a singleton bean; let it look up the prototype or scoped"
            + " bean (ObjectProvider) when it needs one.");
  }

  private static void checkNotAsync(Method method, Class<?> targetClass, String description) {
    for (String name : ASYNC_ANNOTATIONS) {
      if (MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY).isPresent(name)
          || MergedAnnotations.from(targetClass, SearchStrategy.TYPE_HIERARCHY).isPresent(name)) {
        throw new InvalidOnLeadershipMethodException(
            description,
            "it is asynchronous (@"
                + ClassUtils.getShortName(name)
                + "), so it would return before its work is done: a failing acquire hook could no"
                + " longer refuse leadership, and a lose hook could no longer finish stopping the"
                + " work before the lease could expire (failing closed needs hooks that return when"
                + " done)",
            "Remove @"
                + ClassUtils.getShortName(name)
                + " from the method (and its class). Hooks already run on the election's hook"
                + " thread, bounded by conch.hook-timeout; start background work in the acquire"
                + " hook and stop it, waiting for it, in the lose hook.");
      }
    }
  }

  /** The method to call on {@code bean}: through its proxy, so that the advice applies. */
  private static Method invocable(Method method, Object bean, String description) {
    Method invocable;
    try {
      invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
    } catch (IllegalStateException ex) {
      throw new InvalidOnLeadershipMethodException(
          description,
          "the bean is a proxy that cannot pass the call on to it (" + ex.getMessage() + ")",
          "Declare the method on an interface the bean implements, or make it non-private, or"
              + " proxy the class (spring.aop.proxy-target-class=true).");
    }
    if (AopUtils.isCglibProxy(bean) && Modifier.isFinal(invocable.getModifiers())) {
      throw new InvalidOnLeadershipMethodException(
          description,
          "it is final and the bean is a class-based proxy: the call would run on the proxy"
              + " itself, without its advice and without the bean's state",
          "Remove final from the method.");
    }
    return invocable;
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
