package dev.conch.spring.boot.autoconfigure.health;

import dev.conch.spring.Elections;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.boot.autoconfigure.ConchProperties;
import dev.conch.spring.boot.autoconfigure.ConchThreads;
import dev.conch.spring.health.CandidacyPauses;
import dev.conch.spring.health.HealthGatedCandidacy;
import dev.conch.spring.support.ExternalCommandRunnerLifecycle;
import java.time.Clock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.boot.health.registry.ReactiveHealthContributorRegistry;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of health-gated candidacy ({@code
 * conch.health.require}, {@code conch.offices.<name>.require-health}): the {@link
 * HealthGatedCandidacy} that pauses the candidacy of an office while a health contributor or group
 * it requires is not UP, as {@link HealthEndpoint#healthForPath} answers for it, every {@code
 * conch.health.interval} within {@code conch.health.timeout}. Startup fails on a name that is
 * neither. Nothing of it exists until some office requires health.
 */
@AutoConfiguration(
    after = {
      ConchAutoConfiguration.class,
      HealthContributorRegistryAutoConfiguration.class,
      HealthEndpointAutoConfiguration.class
    })
// HealthEndpoint is spring-boot-health's, but needs spring-boot-actuator (EndpointId and more).
@ConditionalOnClass({
  CandidacyPauses.class,
  HealthContributorRegistry.class,
  HealthEndpoint.class,
  EndpointId.class
})
@ConditionalOnBean({CandidacyPauses.class, Elections.class, HealthContributorRegistry.class})
@Conditional(OnRequiredHealthCondition.class)
public final class CandidacyHealthAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  HealthGatedCandidacy conchHealthGatedCandidacy(
      CandidacyPauses pauses,
      Elections elections,
      ConchProperties properties,
      HealthContributorRegistry registry,
      ObjectProvider<ReactiveHealthContributorRegistry> reactive,
      ObjectProvider<HealthEndpointGroups> groups,
      ObjectProvider<ExternalCommandRunnerLifecycle> runners,
      ApplicationEventPublisher publisher,
      Environment environment) {
    RequiredHealthProbe probe =
        new RequiredHealthProbe(registry, reactive.getIfAvailable(), groups.getIfAvailable());
    probe.check(pauses);
    ConchProperties.Health health = properties.getHealth();
    HealthGatedCandidacy candidacy =
        new HealthGatedCandidacy(
            pauses,
            elections,
            probe,
            publisher,
            Clock.systemUTC(),
            health.getInterval(),
            health.getTimeout(),
            ConchThreads.perTask(environment, "conch-health-check-"));
    runners.orderedStream().forEach(candidacy::addRunner);
    return candidacy;
  }
}
