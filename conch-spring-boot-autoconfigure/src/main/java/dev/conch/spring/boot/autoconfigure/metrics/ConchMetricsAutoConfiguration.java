package dev.conch.spring.boot.autoconfigure.metrics;

import dev.conch.Election;
import dev.conch.Ticker;
import dev.conch.etcd.EtcdSession;
import dev.conch.spring.Elections;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.boot.autoconfigure.OfficeTimings;
import dev.conch.spring.boot.metrics.ConchMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Optional;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * {@link EnableAutoConfiguration Auto-configuration} for {@link ConchMetrics}, when Micrometer is
 * on the class path and the application has a {@link MeterRegistry}: a {@code MeterBinder} bean,
 * which Spring Boot's metrics auto-configuration binds to the registry. The offices' timing budgets
 * ({@link OfficeTimings}, in etcd mode) give each office its {@code conch.office.failover.budget}.
 */
@AutoConfiguration(
    after = ConchAutoConfiguration.class,
    afterName = {
      "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"
    })
@ConditionalOnClass({Election.class, MeterRegistry.class})
@ConditionalOnBean({MeterRegistry.class, Elections.class})
public final class ConchMetricsAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  ConchMetrics conchMetrics(
      Elections elections,
      ObjectProvider<EtcdSession> session,
      ObjectProvider<OfficeTimings> timings) {
    OfficeTimings known = timings.getIfUnique();
    return new ConchMetrics(
        elections,
        session.getIfUnique(),
        (known != null) ? known::of : office -> Optional.empty(),
        Ticker.SYSTEM);
  }
}
