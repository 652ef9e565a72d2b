package dev.conch.spring.boot.autoconfigure.lifecycle;

import dev.conch.Election;
import dev.conch.spring.Elections;
import dev.conch.spring.LeaderLifecycle;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.boot.autoconfigure.ConchProperties;
import dev.conch.spring.support.LeaderLifecycleBeanPostProcessor;
import dev.conch.spring.support.LeaderLifecycleBeanRegistrationAotProcessor;
import dev.conch.spring.support.OfficeLifecycles;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

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
  static LeaderLifecycleBeanPostProcessor conchLeaderLifecycleBeanPostProcessor(
      Environment environment) {
    Map<String, ConchProperties.Office> offices =
        Binder.get(environment)
            .bind("conch.offices", Bindable.mapOf(String.class, ConchProperties.Office.class))
            .orElse(Map.of());
    Map<String, List<String>> lifecycleBeans = new LinkedHashMap<>();
    offices.forEach((office, settings) -> lifecycleBeans.put(office, settings.getLifecycleBeans()));
    return new LeaderLifecycleBeanPostProcessor(lifecycleBeans);
  }

  /** Hints for a native image: what the post-processor calls by reflection. */
  @Bean
  static LeaderLifecycleBeanRegistrationAotProcessor conchLeaderLifecycleAotProcessor() {
    return new LeaderLifecycleBeanRegistrationAotProcessor();
  }

  @Bean
  OfficeLifecycles conchOfficeLifecycles(
      LeaderLifecycleBeanPostProcessor conchLeaderLifecycleBeanPostProcessor,
      Elections elections,
      ConchProperties properties) {
    return new OfficeLifecycles(
        conchLeaderLifecycleBeanPostProcessor,
        elections,
        office -> {
          ConchProperties.Office own = properties.getOffices().get(office);
          Duration timeout = (own != null) ? own.getStopTimeout() : null;
          return (timeout != null) ? timeout : properties.getStopTimeout();
        });
  }
}
