package dev.conch.spring.support;

import dev.conch.InvalidArgumentException;
import dev.conch.spring.LeaderLifecycle;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.context.Lifecycle;
import org.springframework.context.SmartLifecycle;
import org.springframework.util.ReflectionUtils;

/**
 * Finds the {@link Lifecycle} beans bound to an office, by {@link LeaderLifecycle @LeaderLifecycle}
 * or by {@code conch.offices.<office>.lifecycle-beans}, keeps them from starting with the context,
 * and names the offices they need.
 */
public final class LeaderLifecycleBeanPostProcessor
    implements BeanPostProcessor, BeanFactoryAware, SmartInitializingSingleton, RequiredOffices {

  private final Map<String, Binding> bindings = new LinkedHashMap<>();

  private final Map<String, String> configured = new LinkedHashMap<>();

  private @Nullable BeanFactory beanFactory;

  @Override
  public void setBeanFactory(BeanFactory beanFactory) {
    this.beanFactory = beanFactory;
  }

  /**
   * Binds the beans that are named by configuration, with their {@code @LeaderLifecycle} ones.
   *
   * @param lifecycleBeans the names of the beans bound to each office by {@code
   *     conch.offices.<office>.lifecycle-beans}
   * @throws InvalidArgumentException when a bean is bound to two offices
   */
  public LeaderLifecycleBeanPostProcessor(Map<String, List<String>> lifecycleBeans) {
    lifecycleBeans.forEach(
        (office, names) -> {
          for (String name : names) {
            String before = this.configured.putIfAbsent(name, office);
            if (before != null && !before.equals(office)) {
              throw new InvalidArgumentException(
                  property(office),
                  name,
                  "a bean bound to one office only; it is bound to '" + before + "' as well");
            }
          }
        });
  }

  @Override
  public Object postProcessAfterInitialization(Object bean, String beanName) {
    String byProperty = this.configured.get(beanName);
    LeaderLifecycle annotation = annotation(beanName);
    if (byProperty == null && annotation == null) {
      return bean;
    }
    String byAnnotation = (annotation != null) ? resolve(annotation.office()) : null;
    String source =
        (byProperty != null) ? property(byProperty) : "@LeaderLifecycle of bean '" + beanName + "'";
    if (byProperty != null && byAnnotation != null && !byAnnotation.equals(byProperty)) {
      throw new InvalidArgumentException(
          source,
          beanName,
          "a bean bound to one office only; @LeaderLifecycle binds it to '"
              + (byAnnotation.isEmpty() ? "(default office)" : byAnnotation)
              + "'");
    }
    if (!(bean instanceof Lifecycle lifecycle)) {
      throw new InvalidArgumentException(
          source,
          beanName,
          "the name of a Lifecycle (usually SmartLifecycle) bean; '"
              + beanName
              + "' is a "
              + bean.getClass().getName());
    }
    if (lifecycle instanceof SmartLifecycle smart && smart.isAutoStartup()) {
      Method setter = autoStartupSetter(bean.getClass());
      if (setter == null) {
        throw new InvalidArgumentException(
            source,
            beanName,
            "a bean that does not start with the context: '"
                + beanName
                + "' returns true from isAutoStartup() and has no setAutoStartup(boolean);"
                + " make isAutoStartup() return false");
      }
      // Public, but possibly on a class that is not (as a BeanWrapper would, it is made
      // accessible).
      ReflectionUtils.makeAccessible(setter);
      ReflectionUtils.invokeMethod(setter, bean, false);
    }
    // One of the two is set: a bean with neither returned above.
    String office = (byProperty != null) ? byProperty : Objects.requireNonNull(byAnnotation);
    synchronized (this.bindings) {
      this.bindings.put(beanName, new Binding(office, beanName, lifecycle, source));
    }
    return bean;
  }

  /** Loads the configured beans that were not created yet (lazy ones); each must exist. */
  @Override
  public void afterSingletonsInstantiated() {
    if (this.beanFactory == null) {
      return;
    }
    this.configured.forEach(
        (name, office) -> {
          boolean seen;
          synchronized (this.bindings) {
            seen = this.bindings.containsKey(name);
          }
          if (!seen) {
            if (!this.beanFactory.containsBean(name)) {
              throw new InvalidArgumentException(
                  property(office), name, "the name of a Lifecycle bean; there is no such bean");
            }
            this.beanFactory.getBean(name);
          }
        });
  }

  /**
   * The public {@code setAutoStartup(boolean)} of a {@link SmartLifecycle} type, if it has one:
   * Spring's containers each declare their own (there is no interface for it), and ahead of time
   * {@link LeaderLifecycleBeanRegistrationAotProcessor} registers this same method for a native
   * image.
   */
  static @Nullable Method autoStartupSetter(Class<?> type) {
    if (!SmartLifecycle.class.isAssignableFrom(type)) {
      return null;
    }
    Method setter = ReflectionUtils.findMethod(type, "setAutoStartup", boolean.class);
    return (setter != null && Modifier.isPublic(setter.getModifiers())) ? setter : null;
  }

  /** Every bound bean, in the order they were created. */
  List<Binding> bindings() {
    synchronized (this.bindings) {
      return List.copyOf(this.bindings.values());
    }
  }

  @Override
  public Collection<Requirement> offices() {
    List<Requirement> offices = new ArrayList<>();
    for (Binding binding : bindings()) {
      offices.add(new Requirement(binding.office(), binding.source()));
    }
    return offices;
  }

  private @Nullable LeaderLifecycle annotation(String beanName) {
    if (this.beanFactory instanceof ListableBeanFactory listable
        && listable.containsBeanDefinition(beanName)) {
      return listable.findAnnotationOnBean(beanName, LeaderLifecycle.class, false);
    }
    return null;
  }

  private String resolve(String office) {
    if (this.beanFactory instanceof ConfigurableBeanFactory configurable) {
      String resolved = configurable.resolveEmbeddedValue(office);
      return (resolved != null) ? resolved : "";
    }
    return office;
  }

  private static String property(String office) {
    return "conch.offices." + office + ".lifecycle-beans";
  }

  /**
   * One bean bound to one office.
   *
   * @param office the office, empty for the default office
   * @param source what bound it, for messages
   */
  record Binding(String office, String beanName, Lifecycle bean, String source) {}
}
