package dev.conch.spring.boot.autoconfigure.observation;

import dev.conch.Election;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.boot.autoconfigure.LeadershipObserver;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * {@link EnableAutoConfiguration Auto-configuration} for {@link ConchObservations} (terms and
 * {@code @OnLeadership} calls) and {@link LeaderOnlyObservations} ({@code @LeaderOnly} calls), when
 * the application has an {@link ObservationRegistry}.
 */
@AutoConfiguration(
    after = ConchAutoConfiguration.class,
    afterName =
        "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnClass({Election.class, ObservationRegistry.class})
@ConditionalOnBean(ObservationRegistry.class)
public final class ConchObservationAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean(LeadershipObserver.class)
  ConchObservations conchObservations(ObservationRegistry observationRegistry) {
    return new ConchObservations(observationRegistry);
  }

  @Bean
  @ConditionalOnMissingBean
  LeaderOnlyObservations conchLeaderOnlyObservations(ObservationRegistry observationRegistry) {
    return new LeaderOnlyObservations(observationRegistry);
  }
}
