package dev.conch.spring.boot.autoconfigure;

import dev.conch.Election;
import dev.conch.InvalidArgumentException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.AutowireCandidateQualifier;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * Registers one {@link Election} bean per configured office, named {@code conchElection.<office>}
 * and qualified by the office name, so that {@code @Qualifier("billing") Election billing} injects
 * the candidate for {@code billing}. The default office's bean is primary: a plain {@code Election}
 * injection point gets it. The bean of the runner's office ({@code conch.runner.*}) is the runner's
 * own election.
 *
 * <p>The offices are read from the environment the application runs with, also when it runs from
 * code generated ahead of time ({@code spring-boot:process-aot}): this post-processor is itself a
 * bean of that code, and it registers the Election beans when the context refreshes. They are
 * marked to be left out of the generated code, so that the offices of the build's environment never
 * become beans of the running application.
 */
final class ElectionsRegistrar implements BeanDefinitionRegistryPostProcessor {

  /** Prefix of the bean names; the office name follows it. */
  static final String BEAN_NAME_PREFIX = "conchElection.";

  private final Environment environment;

  ElectionsRegistrar(Environment environment) {
    this.environment = environment;
  }

  @Override
  public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) {
    BeanFactory beanFactory = (BeanFactory) registry;
    ConfiguredOffices offices = ConfiguredOffices.of(this.environment);
    boolean supervised = registry.containsBeanDefinition(SupervisedOffice.BEAN_NAME);
    if (offices.runnerOffice() != null && !supervised) {
      // Only where the runner's condition was decided with another environment: ahead of time.
      throw SettingProperties.asPropertyValue(
          new InvalidArgumentException(
              "conch.runner.command",
              Binder.get(this.environment)
                  .bind("conch.runner.command", Bindable.listOf(String.class))
                  .map(command -> String.join(" ", command))
                  .orElse(null),
              "no command in an application whose code was generated ahead of time without one: the"
                  + " runner is a condition decided at build time, so set conch.runner.command (or"
                  + " the profile that sets it) when running spring-boot:process-aot as well"),
          this.environment);
    }
    for (String office : offices.names()) {
      RootBeanDefinition definition;
      if (offices.isRunnerOffice(office)) {
        // One candidate per office: the runner's own election is the bean.
        definition =
            new RootBeanDefinition(
                Election.class,
                () ->
                    beanFactory
                        .getBean(SupervisedOffice.BEAN_NAME, SupervisedOffice.class)
                        .election());
        definition.setDependsOn(ElectionFactory.BEAN_NAME, SupervisedOffice.BEAN_NAME);
      } else {
        definition =
            new RootBeanDefinition(
                Election.class, () -> beanFactory.getBean(ElectionFactory.class).create(office));
        // Destroyed before the factory, and so before the session and the client behind it.
        definition.setDependsOn(ElectionFactory.BEAN_NAME);
      }
      definition.addQualifier(new AutowireCandidateQualifier(Qualifier.class, office));
      definition.setPrimary(office.equals(offices.defaultOffice()));
      // Registered again from the runtime environment, never from the generated code.
      definition.setAttribute(BeanRegistrationAotProcessor.IGNORE_REGISTRATION_ATTRIBUTE, true);
      registry.registerBeanDefinition(BEAN_NAME_PREFIX + office, definition);
    }
  }

  @Override
  public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {}
}
