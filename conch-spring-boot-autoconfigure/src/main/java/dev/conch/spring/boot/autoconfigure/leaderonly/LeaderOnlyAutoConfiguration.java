package dev.conch.spring.boot.autoconfigure.leaderonly;

import dev.conch.Election;
import dev.conch.spring.Elections;
import dev.conch.spring.LeaderOnly;
import dev.conch.spring.LeaderOnlyAnnotationBeanPostProcessor;
import dev.conch.spring.LeaderOnlyTasks;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * {@link EnableAutoConfiguration Auto-configuration} for {@link LeaderOnly @LeaderOnly} methods:
 * the post-processor that guards them, and their meter when the application has a {@link
 * MeterRegistry}; and the {@link LeaderOnlyTasks} bean, which guards tasks built at run time by the
 * same means.
 */
@AutoConfiguration(
    after = ConchAutoConfiguration.class,
    afterName =
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration")
@ConditionalOnClass(Election.class)
@ConditionalOnBean(Elections.class)
public final class LeaderOnlyAutoConfiguration {

  @Bean
  static LeaderOnlyAnnotationBeanPostProcessor conchLeaderOnlyAnnotationBeanPostProcessor() {
    return new LeaderOnlyAnnotationBeanPostProcessor();
  }

  @Bean
  @ConditionalOnMissingBean
  LeaderOnlyTasks conchLeaderOnlyTasks(
      LeaderOnlyAnnotationBeanPostProcessor conchLeaderOnlyAnnotationBeanPostProcessor) {
    return new LeaderOnlyTasks(conchLeaderOnlyAnnotationBeanPostProcessor);
  }
}
