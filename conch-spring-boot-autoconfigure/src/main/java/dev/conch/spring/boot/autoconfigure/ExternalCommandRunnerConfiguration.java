package dev.conch.spring.boot.autoconfigure;

import dev.conch.etcd.EtcdSession;
import dev.conch.process.ExternalCommandRunner;
import dev.conch.spring.support.ExternalCommandRunnerLifecycle;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.OnPropertyListCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Scope;
import org.springframework.core.env.Environment;

/**
 * The {@link ExternalCommandRunner} bean, when {@code conch.runner.command} is set. Its election is
 * the Election bean of its office (see {@link RunnerElection}); it starts after the elections and
 * stops before them.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(ExternalCommandRunnerConfiguration.OnRunnerCommandCondition.class)
@EnableConfigurationProperties(ConchRunnerProperties.class)
class ExternalCommandRunnerConfiguration {

  @Bean(SupervisedOffice.BEAN_NAME)
  SupervisedOffice conchSupervisedOffice(
      ConchRunnerProperties runner,
      ElectionFactory factory,
      Environment environment,
      ObjectProvider<EtcdSession> session) {
    EtcdSession etcd = session.getIfAvailable();
    String prefix = (etcd != null) ? etcd.options().prefix() : null;
    return SupervisedOffice.create(runner, factory, ConfiguredOffices.of(environment), prefix);
  }

  /**
   * The current runner. A prototype: a stopped runner cannot start again, so a context started
   * again runs a fresh one, and each lookup ({@code ObjectProvider.getObject()}) returns the
   * current one. The runner is stopped by its lifecycle and closed with the supervised office.
   */
  @Bean
  @Scope(ConfigurableBeanFactory.SCOPE_PROTOTYPE)
  ExternalCommandRunner conchExternalCommandRunner(SupervisedOffice supervisedOffice) {
    return supervisedOffice.runner();
  }

  @Bean
  ExternalCommandRunnerLifecycle conchExternalCommandRunnerLifecycle(
      SupervisedOffice supervisedOffice) {
    return new ExternalCommandRunnerLifecycle(
        supervisedOffice.election().office(), supervisedOffice::start, supervisedOffice::stop);
  }

  /**
   * Matches when {@code conch.runner.command} is set, in any of its forms (a comma-separated list
   * or indexed): Boot's own condition on a list property.
   */
  static class OnRunnerCommandCondition extends OnPropertyListCondition {

    OnRunnerCommandCondition() {
      super(
          ConfiguredOffices.RUNNER_COMMAND,
          () -> ConditionMessage.forCondition("ExternalCommandRunner"));
    }
  }
}
