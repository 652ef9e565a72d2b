package dev.conch.spring.fence;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.transaction.NoTransactionException;
import org.springframework.transaction.interceptor.TransactionAspectSupport;

/**
 * Runs the fence of a {@link Fenced @Fenced} method before the method, inside its transaction: the
 * advice sits after the transaction interceptor on the bean's proxy.
 */
final class FencedMethodInterceptor implements MethodInterceptor {

  private final Supplier<TransactionFence> fence;

  private final Function<String, String> resolver;

  private final Map<Method, String> offices = new ConcurrentHashMap<>();

  /**
   * @param fence the fence, looked up on first use
   * @param resolver resolves placeholders in the office name
   */
  FencedMethodInterceptor(Supplier<TransactionFence> fence, Function<String, String> resolver) {
    this.fence = fence;
    this.resolver = resolver;
  }

  @Override
  public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
    this.fence.get().fence(office(invocation), transactionIsNew());
    return invocation.proceed();
  }

  /** Whether the method's transaction began with this call (nothing in it ran before the fence). */
  private static boolean transactionIsNew() {
    try {
      return TransactionAspectSupport.currentTransactionStatus().isNewTransaction();
    } catch (NoTransactionException ex) {
      return false; // the fence refuses a call without a transaction itself
    }
  }

  /** The office the annotation names, resolved; empty for the default. */
  private String office(MethodInvocation invocation) {
    Method method = invocation.getMethod();
    Object bean = invocation.getThis();
    Class<?> targetClass = (bean != null) ? AopUtils.getTargetClass(bean) : null;
    return this.offices.computeIfAbsent(
        method,
        m -> {
          Fenced annotation =
              AnnotatedElementUtils.findMergedAnnotation(
                  AopUtils.getMostSpecificMethod(m, targetClass), Fenced.class);
          return (annotation != null) ? this.resolver.apply(annotation.office()) : "";
        });
  }
}
