package dev.conch.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Leadership;
import dev.conch.spring.OnLeadership;
import dev.conch.spring.OnLeadership.Transition;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.scheduling.annotation.Async;

/**
 * {@link OnLeadership @OnLeadership} on the beans users really have, on in-memory offices: lazy
 * beans and beans behind proxies work; prototype beans and {@code @Async} methods fail startup with
 * an analysis that says why; conch keeps no bean alive once its context is closed.
 */
@Timeout(60)
class OnLeadershipBeansTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(ConchAutoConfiguration.class))
          .withPropertyValues("conch.standalone=true", "spring.application.name=app")
          .withBean(Recorder.class);

  @Test
  void lazyBeanHooksRun() {
    this.contextRunner
        .withUserConfiguration(LazyHooksConfiguration.class)
        .run(context -> awaitLine(context, "hook acquired lazy"));
  }

  @Test
  void hooksRunWithLazyInitializationOfEveryBean() {
    this.contextRunner
        .withInitializer(
            context ->
                context.addBeanFactoryPostProcessor(
                    new LazyInitializationBeanFactoryPostProcessor()))
        .withBean(Hooks.class)
        .run(context -> awaitLine(context, "hook acquired plain"));
  }

  @Test
  void hooksOfAClassProxyRunThroughItsAdvice() {
    this.contextRunner
        .withUserConfiguration(ClassProxyConfiguration.class)
        .run(
            context -> {
              awaitLine(context, "hook acquired plain");
              assertThat(context.getBean(Recorder.class).lines())
                  .containsSubsequence("advice before acquired", "hook acquired plain");
            });
  }

  @Test
  void hookThatAnInterfaceProxyCannotCallFailsStartup() {
    assertThat(analyze(InterfaceProxyConfiguration.class))
        .satisfies(
            analysis -> {
              assertThat(analysis.getDescription())
                  .startsWith("@OnLeadership method interfaceProxied.acquired() cannot be a hook:")
                  .contains("proxy that cannot pass the call on");
              assertThat(analysis.getAction()).contains("interface");
            });
  }

  @Test
  void finalHookOfAClassProxyFailsStartup() {
    assertThat(analyze(FinalMethodProxyConfiguration.class).getDescription())
        .startsWith("@OnLeadership method finalHooks.acquired() cannot be a hook: it is final");
  }

  @Test
  void prototypeBeanWithHooksFailsStartup() {
    FailureAnalysis analysis = analyze(PrototypeConfiguration.class);
    assertThat(analysis.getDescription())
        .startsWith("@OnLeadership method prototypeHooks.acquired() cannot be a hook:")
        .contains("of scope 'prototype'");
    assertThat(analysis.getAction()).contains("singleton");
  }

  @Test
  void asyncHookFailsStartup() {
    FailureAnalysis analysis = analyze(AsyncConfiguration.class);
    assertThat(analysis.getDescription())
        .startsWith("@OnLeadership method asyncHooks.acquired() cannot be a hook:")
        .contains("asynchronous (@Async)");
    assertThat(analysis.getAction()).startsWith("Remove @Async");
  }

  @Test
  void noHookBeanOutlivesItsContext() {
    AtomicReference<WeakReference<Object>> hooks = new AtomicReference<>();
    this.contextRunner
        .withBean(Hooks.class)
        .run(
            context -> {
              awaitLine(context, "hook acquired plain");
              hooks.set(new WeakReference<>(context.getBean(Hooks.class)));
            });
    await()
        .atMost(WAIT)
        .until(
            () -> {
              System.gc();
              return hooks.get().get() == null;
            });
  }

  private static void awaitLine(AssertableApplicationContext context, String line) {
    Recorder recorder = context.getBean(Recorder.class);
    await().atMost(WAIT).until(() -> recorder.lines().contains(line));
  }

  private FailureAnalysis analyze(Class<?> configuration) {
    return ConchTestSupport.analyze(
        this.contextRunner.withUserConfiguration(configuration),
        new InvalidMethodFailureAnalyzer());
  }

  static class Hooks {

    private final Recorder recorder;

    Hooks(Recorder recorder) {
      this.recorder = recorder;
    }

    @OnLeadership
    void acquired() {
      this.recorder.add("hook acquired plain");
    }

    @OnLeadership(on = Transition.LOST)
    void lost() {
      this.recorder.add("hook lost plain");
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class LazyHooksConfiguration {

    @Bean
    @Lazy
    LazyHooks lazyHooks(Recorder recorder) {
      return new LazyHooks(recorder);
    }
  }

  record LazyHooks(Recorder recorder) {

    @OnLeadership
    void acquired() {
      this.recorder.add("hook acquired lazy");
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class ClassProxyConfiguration {

    @Bean
    Hooks classProxied(Recorder recorder) {
      ProxyFactory factory = new ProxyFactory(new Hooks(recorder));
      factory.setProxyTargetClass(true);
      factory.addAdvice(
          (MethodInterceptor)
              invocation -> {
                recorder.add("advice before " + invocation.getMethod().getName());
                return invocation.proceed();
              });
      return (Hooks) factory.getProxy();
    }
  }

  interface Service {

    void serve();
  }

  static class ServiceWithHooks implements Service {

    @Override
    public void serve() {}

    @OnLeadership
    public void acquired(Leadership leadership) {}
  }

  @Configuration(proxyBeanMethods = false)
  static class InterfaceProxyConfiguration {

    @Bean
    Service interfaceProxied() {
      ProxyFactory factory = new ProxyFactory(new ServiceWithHooks());
      factory.addInterface(Service.class);
      factory.addAdvice((MethodInterceptor) invocation -> invocation.proceed());
      return (Service) factory.getProxy();
    }
  }

  static class FinalHooks {

    @OnLeadership
    public final void acquired() {}
  }

  @Configuration(proxyBeanMethods = false)
  static class FinalMethodProxyConfiguration {

    @Bean
    FinalHooks finalHooks() {
      ProxyFactory factory = new ProxyFactory(new FinalHooks());
      factory.setProxyTargetClass(true);
      factory.addAdvice((MethodInterceptor) invocation -> invocation.proceed());
      return (FinalHooks) factory.getProxy();
    }
  }

  static class PrototypeHooks {

    @OnLeadership
    void acquired() {}
  }

  @Configuration(proxyBeanMethods = false)
  static class PrototypeConfiguration {

    @Bean
    @org.springframework.context.annotation.Scope(ConfigurableBeanFactory.SCOPE_PROTOTYPE)
    PrototypeHooks prototypeHooks() {
      return new PrototypeHooks();
    }
  }

  static class AsyncHooks {

    @OnLeadership
    @Async
    public void acquired() {}
  }

  @Configuration(proxyBeanMethods = false)
  static class AsyncConfiguration {

    @Bean
    AsyncHooks asyncHooks() {
      return new AsyncHooks();
    }
  }
}
