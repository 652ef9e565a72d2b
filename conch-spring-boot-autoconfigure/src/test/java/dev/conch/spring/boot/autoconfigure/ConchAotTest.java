package dev.conch.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.Leadership;
import dev.conch.spring.LeaderLifecycle;
import dev.conch.spring.OnLeadership;
import dev.conch.spring.OnLeadership.Transition;
import dev.conch.spring.boot.actuate.endpoint.ConchEndpoint;
import dev.conch.spring.boot.actuate.endpoint.ConchEndpointWebExtension;
import dev.conch.spring.boot.autoconfigure.actuate.ConchEndpointAutoConfiguration;
import dev.conch.spring.boot.autoconfigure.lifecycle.LeaderLifecycleAutoConfiguration;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.ReflectionHintsPredicates;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.test.tools.CompileWithForkedClassLoader;
import org.springframework.core.test.tools.TestCompiler;
import org.springframework.javapoet.ClassName;

/**
 * conch in an application processed ahead of time, as {@code spring-boot:process-aot} does: the
 * code is generated with one environment and run with another, as a built application is, and the
 * hints a native image needs are registered.
 */
@Timeout(120)
class ConchAotTest {

  @Test
  @CompileWithForkedClassLoader
  @SuppressWarnings("unchecked")
  void electionBeansAndHooksComeFromTheEnvironmentTheGeneratedCodeRunsWith() {
    GenerationResult generated = generate("conch.office=built", "conch.offices.built-too.ttl=5s");
    TestCompiler.forSystem()
        .with(generated.context())
        .compile(
            compiled -> {
              try (GenericApplicationContext running = new GenericApplicationContext()) {
                TestPropertyValues.of(
                        "conch.standalone=true",
                        "conch.office=reports",
                        "conch.offices.billing.hook-timeout=2s")
                    .applyTo(running);
                compiled
                    .getInstance(
                        ApplicationContextInitializer.class, generated.initializer().toString())
                    .initialize(running);
                running.refresh();

                assertThat(running.getBeansOfType(Election.class))
                    .containsOnlyKeys("conchElection.reports", "conchElection.billing");
                assertThat(running.getBean(Election.class).office()).isEqualTo("reports");
                assertThat(running.getBean(Qualified.class).billing().office())
                    .isEqualTo("billing");
                Hooks hooks = running.getBean(Hooks.class);
                await()
                    .atMost(Duration.ofSeconds(30))
                    .until(hooks::calls, calls -> calls.contains("acquired reports"));
              }
            });
  }

  @Test
  void hookMethodsOfEveryBeanAreRegisteredForInvocation() {
    RuntimeHints hints = generate().context().getRuntimeHints();

    assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Hooks.class, "acquired"))
        .accepts(hints);
    assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Hooks.class, "lost"))
        .accepts(hints);
    assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Hooks.class, "unrelated"))
        .rejects(hints);
  }

  @Test
  void propertiesBoundBeforeAnyBeanExistsAreRegisteredForBinding() {
    RuntimeHints hints = generate().context().getRuntimeHints();

    assertThat(
            RuntimeHintsPredicates.reflection()
                .onMethodInvocation(ConchProperties.Office.class, "setHookTimeout"))
        .accepts(hints);
    assertThat(
            RuntimeHintsPredicates.reflection()
                .onMethodInvocation(ConchRunnerProperties.class, "setCommand"))
        .accepts(hints);
  }

  @Test
  void withConchSwitchedOffItsHintsAreNotRegistered() {
    RuntimeHints hints = generate("conch.enabled=false").context().getRuntimeHints();

    assertThat(
            RuntimeHintsPredicates.reflection()
                .onMethodInvocation(ConchProperties.Office.class, "setHookTimeout"))
        .rejects(hints);
    assertThat(
            RuntimeHintsPredicates.reflection()
                .onMethodInvocation(ConchRunnerProperties.class, "setCommand"))
        .rejects(hints);
  }

  @Test
  void autoStartupSetterOfLifecycleBeansIsRegisteredForInvocation() {
    RuntimeHints hints =
        generate(LifecycleApplication.class, "conch.office=reports").context().getRuntimeHints();

    assertThat(
            RuntimeHintsPredicates.reflection()
                .onMethodInvocation(ListenerContainer.class, "setAutoStartup"))
        .accepts(hints);
  }

  @Test
  void withoutConchsLifecycleSupportNoAutoStartupSetterIsRegistered() {
    RuntimeHints hints =
        generate(LifecycleApplication.class, "conch.enabled=false").context().getRuntimeHints();

    assertThat(
            RuntimeHintsPredicates.reflection()
                .onMethodInvocation(ListenerContainer.class, "setAutoStartup"))
        .rejects(hints);
  }

  @Test
  void endpointOperationsAndEveryDescriptorTheyAnswerWithAreRegistered() {
    RuntimeHints hints =
        generate(
                EndpointApplication.class,
                "conch.office=reports",
                "management.endpoints.web.exposure.include=conch")
            .context()
            .getRuntimeHints();

    ReflectionHintsPredicates reflection = RuntimeHintsPredicates.reflection();
    assertThat(reflection.onMethodInvocation(ConchEndpoint.class, "conch")).accepts(hints);
    assertThat(reflection.onMethodInvocation(ConchEndpoint.class, "act")).accepts(hints);
    for (Class<?> descriptor :
        List.of(
            ConchEndpoint.HolderDescriptor.class,
            ConchEndpoint.AssertionDescriptor.class,
            ConchEndpoint.ActionDescriptor.class,
            ConchEndpointWebExtension.ErrorDescriptor.class)) {
      assertThat(reflection.onType(descriptor)).as("%s", descriptor).accepts(hints);
    }
  }

  /** Generates the code of an application with {@code properties}, in standalone mode. */
  private static GenerationResult generate(String... properties) {
    return generate(Application.class, properties);
  }

  private static GenerationResult generate(Class<?> application, String... properties) {
    try (AnnotationConfigApplicationContext building = new AnnotationConfigApplicationContext()) {
      TestPropertyValues.of("conch.standalone=true").and(properties).applyTo(building);
      building.register(application);
      TestGenerationContext generationContext = new TestGenerationContext(application);
      ClassName initializer =
          new ApplicationContextAotGenerator().processAheadOfTime(building, generationContext);
      generationContext.writeGeneratedContent();
      return new GenerationResult(generationContext, initializer);
    }
  }

  private record GenerationResult(TestGenerationContext context, ClassName initializer) {}

  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration(ConchAutoConfiguration.class)
  static class Application {

    @Bean
    Hooks hooks() {
      return new Hooks();
    }

    @Bean
    Qualified qualified(@Qualifier("billing") Election billing) {
      return new Qualified(billing);
    }
  }

  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration({ConchAutoConfiguration.class, ConchEndpointAutoConfiguration.class})
  static class EndpointApplication {}

  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration({ConchAutoConfiguration.class, LeaderLifecycleAutoConfiguration.class})
  static class LifecycleApplication {

    @Bean
    @LeaderLifecycle
    ListenerContainer listenerContainer() {
      return new ListenerContainer();
    }
  }

  /** Like Spring's listener containers: a SmartLifecycle with a setter of its own. */
  public static class ListenerContainer implements SmartLifecycle {

    private volatile boolean autoStartup = true;

    private volatile boolean running;

    public void setAutoStartup(boolean autoStartup) {
      this.autoStartup = autoStartup;
    }

    @Override
    public boolean isAutoStartup() {
      return this.autoStartup;
    }

    @Override
    public void start() {
      this.running = true;
    }

    @Override
    public void stop() {
      this.running = false;
    }

    @Override
    public boolean isRunning() {
      return this.running;
    }
  }

  record Qualified(Election billing) {}

  static class Hooks {

    private final List<String> calls = new CopyOnWriteArrayList<>();

    @OnLeadership
    void acquired(Leadership leadership) {
      this.calls.add("acquired " + leadership.office());
    }

    @OnLeadership(on = Transition.LOST)
    void lost(Leadership leadership) {
      this.calls.add("lost " + leadership.office());
    }

    void unrelated() {}

    List<String> calls() {
      return List.copyOf(this.calls);
    }
  }
}
