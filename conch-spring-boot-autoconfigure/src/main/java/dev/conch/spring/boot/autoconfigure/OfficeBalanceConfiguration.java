package dev.conch.spring.boot.autoconfigure;

import dev.conch.GroupOptions;
import dev.conch.InvalidArgumentException;
import dev.conch.Setting;
import dev.conch.etcd.EtcdSession;
import dev.conch.spring.Elections;
import dev.conch.spring.support.OfficeBalancer;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

/**
 * A fair share of the application's offices among its instances ({@code conch.balance.*}), in etcd
 * mode: every office but the runner's (its election cannot hand over) joins one group, and an
 * office moves only while no leader-only work of its term runs.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = "conch.balance.enabled", matchIfMissing = true)
class OfficeBalanceConfiguration {

  /** The group of an application without spring.application.name (nor conch.balance.group). */
  static final String DEFAULT_GROUP = "conch";

  @Bean
  @ConditionalOnMissingBean
  OfficeBalancer conchOfficeBalancer(
      Elections elections,
      EtcdSession etcdSession,
      ConchProperties properties,
      Environment environment,
      ApplicationEventPublisher eventPublisher) {
    return new OfficeBalancer(
        elections,
        groupOptions(properties, environment),
        etcdSession::group,
        election -> !(election instanceof RunnerElection),
        eventPublisher,
        ConchThreads.perTask(environment, "conch-balance-"));
  }

  /**
   * The group options {@code conch.balance.*} and {@code conch.candidate.*} describe; a refusal
   * names its property and the value as it was written.
   */
  static GroupOptions groupOptions(ConchProperties properties, Environment environment) {
    String property = "conch.balance.group";
    String group = properties.getBalance().getGroup();
    if (!StringUtils.hasText(group)) {
      property = "spring.application.name";
      group = environment.getProperty(property);
    }
    if (!StringUtils.hasText(group)) {
      group = DEFAULT_GROUP;
    }
    ConchProperties.Balance balance = properties.getBalance();
    ConchProperties.Candidate candidate = properties.getCandidate();
    GroupOptions.Builder options =
        GroupOptions.builder(group)
            .candidateId(candidate.getId())
            .priority(candidate.getPriority());
    if (balance.getDelay() != null) {
      options.delay(balance.getDelay());
    }
    if (candidate.getMinTenure() != null) {
      options.minTenure(candidate.getMinTenure());
    }
    try {
      return options.build();
    } catch (InvalidArgumentException ex) {
      boolean name = ex.setting().filter(setting -> setting == Setting.GROUP).isPresent();
      throw SettingProperties.shared(environment).invalid(name ? ex.named(property) : ex);
    }
  }
}
