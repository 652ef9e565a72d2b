package dev.conch.spring.boot.autoconfigure;

import dev.conch.Election;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.support.AutowireCandidateQualifier;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Registers one {@link Election} bean per configured office, named {@code conchElection.<office>}
 * and qualified by the office name, so that {@code @Qualifier("billing") Election billing} injects
 * the candidate for {@code billing}. The default office's bean is primary: a plain {@code Election}
 * injection point gets it. The bean of the runner's office ({@code conch.runner.*}) is the runner's
 * own election.
 */
final class ElectionsRegistrar
    implements ImportBeanDefinitionRegistrar, EnvironmentAware, BeanFactoryAware {

  /** Prefix of the bean names; the office name follows it. */
  static final String BEAN_NAME_PREFIX = "conchElection.";

  private Environment environment;

  private BeanFactory beanFactory;

  @Override
  public void setEnvironment(Environment environment) {
    this.environment = environment;
  }

  @Override
  public void setBeanFactory(BeanFactory beanFactory) {
    this.beanFactory = beanFactory;
  }

  @Override
  public void registerBeanDefinitions(
      AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
    ConfiguredOffices offices = ConfiguredOffices.of(this.environment);
    for (String office : offices.names()) {
      RootBeanDefinition definition;
      if (offices.isRunnerOffice(office)) {
        // One candidate per office: the runner's own election is the bean.
        definition =
            new RootBeanDefinition(
                Election.class,
                () ->
                    this.beanFactory
                        .getBean(SupervisedOffice.BEAN_NAME, SupervisedOffice.class)
                        .election());
        definition.setDependsOn(ElectionFactory.BEAN_NAME, SupervisedOffice.BEAN_NAME);
      } else {
        definition =
            new RootBeanDefinition(
                Election.class,
                () -> this.beanFactory.getBean(ElectionFactory.class).create(office));
        // Destroyed before the factory, and so before the session and the client behind it.
        definition.setDependsOn(ElectionFactory.BEAN_NAME);
      }
      definition.addQualifier(new AutowireCandidateQualifier(Qualifier.class, office));
      definition.setPrimary(office.equals(offices.defaultOffice()));
      registry.registerBeanDefinition(BEAN_NAME_PREFIX + office, definition);
    }
  }
}
