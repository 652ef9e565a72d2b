package dev.conch.spring.boot.autoconfigure.lifecycle;

import dev.conch.Election;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.boot.autoconfigure.ConchProperties;
import dev.conch.spring.boot.autoconfigure.Elections;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * {@link EnableAutoConfiguration Auto-configuration} for {@link
 * org.springframework.context.Lifecycle Lifecycle} beans bound to an office ({@link
 * LeaderLifecycle @LeaderLifecycle}, {@code conch.offices.<office>.lifecycle-beans}).
 */
@AutoConfiguration(after = ConchAutoConfiguration.class)
@ConditionalOnClass(Election.class)
@ConditionalOnBean(Elections.class)
public final class LeaderLifecycleAutoConfiguration {

  @Bean
  static LeaderLifecycleBeanPostProcessor conchLeaderLifecycleBeanPostProcessor() {
    return new LeaderLifecycleBeanPostProcessor();
  }

  @Bean
  OfficeLifecycles conchOfficeLifecycles(
      LeaderLifecycleBeanPostProcessor conchLeaderLifecycleBeanPostProcessor,
      Elections elections,
      ConchProperties properties) {
    return new OfficeLifecycles(conchLeaderLifecycleBeanPostProcessor, elections, properties);
  }
}
