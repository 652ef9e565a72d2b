package dev.conch.spring.fence;

import dev.conch.spring.support.AnnotatedMethodAdvisingPostProcessor;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.annotation.BeanFactoryAnnotationUtils;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionManager;
import org.springframework.transaction.interceptor.TransactionAttribute;
import org.springframework.transaction.interceptor.TransactionAttributeSource;
import org.springframework.transaction.support.ResourceTransactionManager;

/**
 * Adds the fence to every bean that has {@link Fenced @Fenced} methods, after the advisors its
 * proxy already has, so that the fence runs inside the transaction the transaction interceptor
 * began; refuses, at startup, {@code @Fenced} methods that are not transactional.
 */
public final class FencedAnnotationBeanPostProcessor
    extends AnnotatedMethodAdvisingPostProcessor<Fenced> implements SmartInitializingSingleton {

  /** The transaction manager qualifier of each {@code @Fenced} method seen ("" for the default). */
  private final Map<Method, String> qualifiers = new ConcurrentHashMap<>();

  /** A post-processor with class-based proxies that appends its advice to existing proxies. */
  public FencedAnnotationBeanPostProcessor() {
    // Appended to the proxy's advisors: inside the transaction interceptor, never before it.
    super(Fenced.class, false);
  }

  @Override
  public void setBeanFactory(BeanFactory beanFactory) {
    super.setBeanFactory(beanFactory);
    FencedMethodInterceptor interceptor =
        new FencedMethodInterceptor(
            () -> fence(beanFactory), office -> resolve(beanFactory, office));
    advise(interceptor);
  }

  /** Refuses what cannot be fenced, and records the method's transaction manager. */
  @Override
  protected void check(Method method, Fenced annotation, Class<?> targetClass, String beanName) {
    String unproxyable = unproxyable(method);
    if (unproxyable != null) {
      throw new InvalidFencedMethodException(
          method,
          "is "
              + unproxyable
              + ", so no proxy can intercept it and its transaction would run unfenced",
          "Make it neither private, final nor static.");
    }
    TransactionAttributeSource transactions = transactionAttributeSource();
    if (transactions == null) {
      throw new InvalidFencedMethodException(
          method,
          "cannot be transactional: the application has no transaction management"
              + " (no TransactionAttributeSource bean)",
          "Give the application a transaction manager (Spring Boot's DataSource or JPA"
              + " auto-configuration does) and make the method @Transactional.");
    }
    TransactionAttribute attribute = transactions.getTransactionAttribute(method, targetClass);
    if (attribute == null) {
      throw new InvalidFencedMethodException(
          method,
          "is not transactional: a fence outside the transaction whose writes it protects"
              + " protects nothing",
          "Annotate the method (or its class) with @Transactional.");
    }
    int propagation = attribute.getPropagationBehavior();
    if (propagation == TransactionDefinition.PROPAGATION_NEVER
        || propagation == TransactionDefinition.PROPAGATION_NOT_SUPPORTED) {
      throw new InvalidFencedMethodException(
          method,
          "runs without a transaction (@Transactional(propagation = "
              + (propagation == TransactionDefinition.PROPAGATION_NEVER ? "NEVER" : "NOT_SUPPORTED")
              + ")): a fence outside a transaction protects nothing",
          "Use a propagation that runs in a transaction (REQUIRED, the default).");
    }
    String qualifier = attribute.getQualifier();
    this.qualifiers.put(method, (qualifier != null) ? qualifier : "");
  }

  /**
   * The {@code @Fenced} methods of the beans made so far: every singleton's once the context's
   * singletons are instantiated.
   */
  public Set<Method> fencedMethods() {
    return Set.copyOf(this.qualifiers.keySet());
  }

  /**
   * Refuses, once every bean exists, a {@code @Fenced} method whose transaction manager manages
   * another {@code DataSource} than the fence's: the fence would check the fence's transaction (if
   * one were open) while the method's writes went unfenced to the other database.
   */
  @Override
  public void afterSingletonsInstantiated() {
    if (this.beanFactory == null || this.qualifiers.isEmpty()) {
      return;
    }
    TransactionFence fence = this.beanFactory.getBeanProvider(TransactionFence.class).getIfUnique();
    if (fence == null) {
      return;
    }
    for (Map.Entry<Method, String> entry : this.qualifiers.entrySet()) {
      TransactionManager manager = transactionManager(entry.getValue());
      DataSource managed = (manager != null) ? managedDataSource(manager) : null;
      if (managed != null && !fence.isOf(managed)) {
        throw new InvalidFencedMethodException(
            entry.getKey(),
            "runs in transactions of "
                + (entry.getValue().isEmpty()
                    ? "the default transaction manager"
                    : "the transaction manager '" + entry.getValue() + "'")
                + ", which manages another DataSource than the fence's: its writes would go"
                + " unfenced while the fence checked another transaction",
            "Give the method the transaction manager of the fence's DataSource, or define a"
                + " TransactionFence bean for the DataSource it writes to.");
      }
    }
  }

  private @Nullable TransactionManager transactionManager(String qualifier) {
    if (this.beanFactory == null) {
      return null;
    }
    try {
      return qualifier.isEmpty()
          ? this.beanFactory.getBeanProvider(TransactionManager.class).getIfUnique()
          : BeanFactoryAnnotationUtils.qualifiedBeanOfType(
              this.beanFactory, TransactionManager.class, qualifier);
    } catch (BeansException ex) {
      return null; // Spring's own interceptor reports a missing one when the method is called
    }
  }

  /** The DataSource a transaction manager binds, when it says (JDBC, JPA); null otherwise. */
  private static @Nullable DataSource managedDataSource(TransactionManager manager) {
    if (manager instanceof ResourceTransactionManager resources
        && resources.getResourceFactory() instanceof DataSource dataSource) {
      return dataSource;
    }
    try {
      // JpaTransactionManager (spring-orm is optional here): the DataSource it exposes.
      Object dataSource = manager.getClass().getMethod("getDataSource").invoke(manager);
      return (dataSource instanceof DataSource found) ? found : null;
    } catch (ReflectiveOperationException | RuntimeException ex) {
      return null;
    }
  }

  private @Nullable TransactionAttributeSource transactionAttributeSource() {
    return (this.beanFactory != null)
        ? this.beanFactory.getBeanProvider(TransactionAttributeSource.class).getIfUnique()
        : null;
  }

  private static TransactionFence fence(BeanFactory beanFactory) {
    try {
      return beanFactory.getBean(TransactionFence.class);
    } catch (NoSuchBeanDefinitionException ex) {
      throw new FenceUnavailableException(
          "No TransactionFence bean to run @Fenced methods with: conch's fence needs a single"
              + " DataSource bean (or a TransactionFence bean of the application's own)");
    }
  }
}
