package dev.conch.spring.boot.autoconfigure.observation;

import dev.conch.Election;
import dev.conch.spring.leaderonly.LeaderOnlyObservations;
import dev.conch.spring.observation.HookObservationConvention;
import dev.conch.spring.observation.LeaderOnlyObservationConvention;
import dev.conch.spring.support.ConchObservations;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of conch's observations, when the application
 * has an {@link ObservationRegistry} (Boot's observation auto-configuration makes one): the {@code
 * conch.hook} observation of each {@code @OnLeadership} call and the {@code conch.leaderonly}
 * observation of each {@code @LeaderOnly} call, each named by the application's convention bean
 * when it has one (the custom convention, which beats a {@code GlobalObservationConvention}), else
 * by conch's default. Boot's meter handler makes the {@code conch.leaderonly} timer of the latter.
 * As Boot's {@code ScheduledTasksObservationAutoConfiguration} hands the registry to the scheduler,
 * this one hands it to conch's post-processors and lifecycle, which look these beans up once every
 * singleton exists.
 */
@AutoConfiguration(
    afterName =
        "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnClass({Election.class, ObservationRegistry.class})
@ConditionalOnBean(ObservationRegistry.class)
@ConditionalOnBooleanProperty(name = "conch.enabled", matchIfMissing = true)
public final class ConchObservationAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  ConchObservations conchHookObservations(
      ObservationRegistry registry, ObjectProvider<HookObservationConvention> convention) {
    return new ConchObservations(registry, convention.getIfUnique());
  }

  @Bean
  @ConditionalOnMissingBean
  LeaderOnlyObservations conchLeaderOnlyObservations(
      ObservationRegistry registry, ObjectProvider<LeaderOnlyObservationConvention> convention) {
    return new LeaderOnlyObservations(registry, convention.getIfUnique());
  }
}
