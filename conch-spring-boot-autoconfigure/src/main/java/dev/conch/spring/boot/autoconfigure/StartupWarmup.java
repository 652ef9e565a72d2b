package dev.conch.spring.boot.autoconfigure;

import dev.conch.Holder;
import java.time.Duration;
import java.util.List;
import org.aopalliance.intercept.MethodInterceptor;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Loads and initializes, on a thread of its own ({@value #THREAD_NAME}), the classes conch's beans
 * will need later in the refresh, while the context is still busy with everything else: the
 * election core, the jetcd client's own classes, the local host name a candidate's id is made of,
 * and, where {@code @LeaderOnly} can proxy beans, Spring's class-based proxies. The beans then find
 * them ready instead of loading them on the thread that starts the application.
 *
 * <p>Only a head start: nothing waits for it, nothing it does is needed, and a failure is logged at
 * debug level and ignored. It does not connect to etcd. It ends by itself, and at the latest when
 * the context closes.
 */
final class StartupWarmup implements BeanFactoryPostProcessor, DisposableBean {

  /** The name of the warm-up thread. */
  static final String THREAD_NAME = "conch-warmup";

  /** The classes of the election path, each with its static initialization. */
  static final List<String> CLASSES =
      List.of(
          // In the order the beans need them: the client's builder, the session, the elections.
          "io.etcd.jetcd.ClientBuilder",
          "dev.conch.etcd.EtcdClients",
          "dev.conch.etcd.CallDeadlines",
          "dev.conch.etcd.EtcdSession",
          "dev.conch.etcd.LeaseKeeper",
          "dev.conch.FencedElection",
          "dev.conch.ElectionLoop",
          "dev.conch.LeadershipTerm",
          "dev.conch.ElectionOptions",
          "dev.conch.etcd.EtcdOffice",
          "dev.conch.etcd.EtcdCampaign",
          "io.etcd.jetcd.options.GetOption",
          "io.etcd.jetcd.options.PutOption",
          "io.etcd.jetcd.options.WatchOption",
          "io.etcd.jetcd.op.Cmp",
          "io.etcd.jetcd.op.CmpTarget",
          "dev.conch.spring.ConchLifecycle",
          "dev.conch.spring.ElectionEventPublisher",
          "dev.conch.spring.boot.autoconfigure.HandlerChain",
          "dev.conch.spring.LeadershipAcquiredEvent",
          "dev.conch.spring.LeadershipLostEvent",
          "dev.conch.spring.LeaderObservedEvent");

  private static final String LEADER_ONLY_POST_PROCESSOR =
      "dev.conch.spring.LeaderOnlyAnnotationBeanPostProcessor";

  private static final Duration JOIN_ON_CLOSE = Duration.ofSeconds(1);

  private static final Log logger = LogFactory.getLog(StartupWarmup.class);

  private volatile @Nullable Thread thread;

  @Override
  public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
    if (this.thread != null) {
      return;
    }
    ClassLoader classLoader = beanFactory.getBeanClassLoader();
    boolean proxies = hasBeanOfType(beanFactory, LEADER_ONLY_POST_PROCESSOR, classLoader);
    Thread warmup = new Thread(() -> warm(classLoader, proxies), THREAD_NAME);
    warmup.setDaemon(true);
    this.thread = warmup;
    warmup.start();
  }

  /** Whether the thread has finished (or never started). */
  boolean isDone() {
    Thread warmup = this.thread;
    return warmup == null || !warmup.isAlive();
  }

  private static void warm(@Nullable ClassLoader classLoader, boolean proxies) {
    long started = System.nanoTime();
    for (String name : CLASSES) {
      if (Thread.currentThread().isInterrupted()) {
        return;
      }
      try {
        Class.forName(name, true, classLoader);
      } catch (Throwable ex) {
        logger.debug("Warm-up could not load " + name, ex);
      }
    }
    try {
      // A candidate's id is host:pid; the local host name may take a name lookup.
      Holder.self("warmup", null, null);
    } catch (Throwable ex) {
      logger.debug("Warm-up could not describe this candidate", ex);
    }
    if (proxies && !Thread.currentThread().isInterrupted()) {
      try {
        // The first class-based proxy loads CGLIB, ASM and Objenesis; @LeaderOnly beans need it.
        ProxyFactory factory = new ProxyFactory(new Target());
        factory.setProxyTargetClass(true);
        factory.addAdvice((MethodInterceptor) invocation -> invocation.proceed());
        ((Target) factory.getProxy(classLoader)).run();
      } catch (Throwable ex) {
        logger.debug("Warm-up could not make a class-based proxy", ex);
      }
    }
    if (logger.isDebugEnabled()) {
      logger.debug(
          "Warm-up done in " + Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms");
    }
  }

  private static boolean hasBeanOfType(
      ConfigurableListableBeanFactory beanFactory,
      String className,
      @Nullable ClassLoader classLoader) {
    if (!ClassUtils.isPresent(className, classLoader)) {
      return false;
    }
    Class<?> type = ClassUtils.resolveClassName(className, classLoader);
    return beanFactory.getBeanNamesForType(type, true, false).length > 0;
  }

  @Override
  public void destroy() throws InterruptedException {
    Thread warmup = this.thread;
    if (warmup != null) {
      warmup.interrupt();
      warmup.join(JOIN_ON_CLOSE.toMillis());
    }
  }

  /** What the warm-up proxies: a class of its own, so no application class is touched. */
  static class Target {

    void run() {}
  }
}
