package dev.conch.spring.boot.autoconfigure;

import dev.conch.Holder;
import java.time.Duration;
import java.util.List;
import org.aopalliance.intercept.MethodInterceptor;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.boot.autoconfigure.preinitialize.BackgroundPreinitializer;
import org.springframework.util.ClassUtils;

/**
 * Loads and initializes, on Spring Boot's background pre-initialization thread, the classes conch's
 * beans will need later in the start-up, while the main thread is still busy with the configuration
 * classes: the election core, the jetcd client's builder and options, the local host name a
 * candidate's id is made of, and Spring's class-based proxies, which {@code @LeaderOnly} needs. The
 * beans then find them ready instead of loading them on the thread that starts the application.
 *
 * <p>A {@link BackgroundPreinitializer}, registered in {@code META-INF/spring.factories}: Boot
 * starts it once the environment is prepared and waits for it before the application is ready; it
 * does not run with a single processor or with {@code spring.backgroundpreinitializer.ignore=true}.
 * Only a head start: nothing needs it, a failure is logged at debug level and ignored, it does not
 * connect to etcd and does not build the jetcd client. It skips its work when conch is turned off
 * by a system property or the environment ({@code conch.enabled=false}, {@code
 * CONCH_ENABLED=false}); it cannot see the application's other property sources this early.
 */
final class StartupWarmup implements BackgroundPreinitializer {

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
          "dev.conch.spring.support.ConchLifecycle",
          "dev.conch.spring.support.ElectionEventPublisher",
          "dev.conch.spring.boot.autoconfigure.HandlerChain",
          "dev.conch.spring.LeadershipAcquiredEvent",
          "dev.conch.spring.LeadershipLostEvent",
          "dev.conch.spring.LeaderObservedEvent");

  private static final String PROXY_FACTORY = "org.springframework.aop.framework.ProxyFactory";

  private static final Log logger = LogFactory.getLog(StartupWarmup.class);

  @Override
  public void preinitialize() {
    if (turnedOff(System.getProperty("conch.enabled"), System.getenv("CONCH_ENABLED"))) {
      return;
    }
    warm(StartupWarmup.class.getClassLoader());
  }

  /** Whether a system property or environment variable turns conch off. */
  static boolean turnedOff(@Nullable String property, @Nullable String variable) {
    return "false".equalsIgnoreCase(property) || "false".equalsIgnoreCase(variable);
  }

  static void warm(@Nullable ClassLoader classLoader) {
    long started = System.nanoTime();
    for (String name : CLASSES) {
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
    if (ClassUtils.isPresent(PROXY_FACTORY, classLoader)) {
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

  /** What the warm-up proxies: a class of its own, so no application class is touched. */
  static class Target {

    void run() {}
  }
}
