package dev.conch.spring.boot.autoconfigure.health;

import dev.conch.Election;
import dev.conch.etcd.EtcdSession;
import dev.conch.spring.Elections;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.boot.health.ConchHealthIndicator;
import dev.conch.spring.boot.health.LeaderReadinessHealthIndicator;
import dev.conch.spring.support.ConchLifecycle;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroupsPostProcessor;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.AvailabilityProbesAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@link EnableAutoConfiguration Auto-configuration} for the {@link ConchHealthIndicator}, when
 * Spring Boot's health support is on the class path; {@code management.health.conch.enabled=false}
 * switches it off.
 *
 * <p>With {@code conch.health.readiness-leader=true}, the {@link LeaderReadinessHealthIndicator}
 * {@code conchLeader} too, a member of the {@code readiness} group: ready only while this instance
 * leads the default office.
 *
 * <p>The health module's own condition sits on a nested configuration, below the class condition:
 * it is not even loaded when the health module is absent.
 */
@AutoConfiguration(
    after = {ConchAutoConfiguration.class, AvailabilityProbesAutoConfiguration.class})
@ConditionalOnClass({
  Election.class,
  HealthIndicator.class,
  ConditionalOnEnabledHealthIndicator.class
})
@ConditionalOnBean(Elections.class)
public final class ConchHealthContributorAutoConfiguration {

  /** The indicator, unless switched off. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnEnabledHealthIndicator("conch")
  static class HealthIndicatorConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = {"conchHealthIndicator", "conchHealthContributor"})
    ConchHealthIndicator conchHealthIndicator(
        Elections elections, ObjectProvider<EtcdSession> session) {
      return new ConchHealthIndicator(elections, session.getIfUnique());
    }
  }

  /** Readiness that follows the leadership of the default office, on request. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnBooleanProperty(ReadinessLeaderCheck.PROPERTY)
  static class LeaderReadinessConfiguration {

    /** The contributor's name in the health groups: the bean name without its suffix. */
    static final String CONTRIBUTOR = "conchLeader";

    @Bean(CONTRIBUTOR + "HealthIndicator")
    @ConditionalOnMissingBean(name = CONTRIBUTOR + "HealthIndicator")
    LeaderReadinessHealthIndicator conchLeaderHealthIndicator(Elections elections) {
      return new LeaderReadinessHealthIndicator(elections);
    }

    @Bean
    ReadinessLeaderCheck conchReadinessLeaderCheck(
        Elections elections, ObjectProvider<ConchLifecycle> lifecycle) {
      return new ReadinessLeaderCheck(elections, lifecycle);
    }

    /** Only with the health endpoint, whose groups it joins. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({
      HealthEndpointGroupsPostProcessor.class,
      org.springframework.boot.actuate.endpoint.web.AdditionalPathsMapper.class
    })
    static class ReadinessGroupConfiguration {

      @Bean
      ReadinessGroupPostProcessor conchReadinessGroupPostProcessor() {
        return new ReadinessGroupPostProcessor(CONTRIBUTOR);
      }
    }
  }
}
