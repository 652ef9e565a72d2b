package dev.conch.spring.boot.autoconfigure.fence;

import dev.conch.jdbc.JdbcFence;
import dev.conch.spring.Elections;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.fence.FenceListener;
import dev.conch.spring.fence.FenceTermStarts;
import dev.conch.spring.fence.FencedAnnotationBeanPostProcessor;
import dev.conch.spring.fence.LeadershipTerms;
import dev.conch.spring.fence.TransactionFence;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer;
import org.springframework.boot.sql.autoconfigure.init.OnDatabaseInitializationCondition;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of conch's fence in the application's own
 * database, when conch-jdbc, Spring's JDBC and transaction support and a single {@link DataSource}
 * are there: the {@link TransactionFence} bean, {@code @Fenced} methods, the fence table's schema
 * (created in an embedded database by default, {@code conch.fence.jdbc.initialize-schema}), and the
 * {@code conch.fence} meter with Micrometer.
 *
 * <p>{@code @Fenced} methods are checked and intercepted whenever conch-jdbc is on the class path,
 * so that a missing {@code DataSource} or disabled conch fails their calls instead of leaving them
 * unfenced.
 */
@AutoConfiguration(
    after = ConchAutoConfiguration.class,
    afterName = {
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
      "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
      "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration",
      "org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"
    })
@ConditionalOnClass({
  JdbcFence.class,
  DataSourceUtils.class,
  PlatformTransactionManager.class,
  DataSourceScriptDatabaseInitializer.class
})
@EnableConfigurationProperties(FenceJdbcProperties.class)
public final class ConchFenceAutoConfiguration {

  @Bean
  static FencedAnnotationBeanPostProcessor conchFencedAnnotationBeanPostProcessor() {
    return new FencedAnnotationBeanPostProcessor();
  }

  /** The fence of the application's {@code DataSource}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnSingleCandidate(DataSource.class)
  static class DataSourceFenceConfiguration {

    @Bean
    @ConditionalOnMissingBean
    JdbcFence conchJdbcFence(FenceJdbcProperties properties) {
      return JdbcFence.forTable(properties.getTable());
    }

    @Bean
    @ConditionalOnMissingBean
    LeadershipTerms conchLeadershipTerms(ObjectProvider<Elections> elections) {
      return new ElectionsLeadershipTerms(elections);
    }

    @Bean
    @ConditionalOnMissingBean
    TransactionFence conchTransactionFence(
        DataSource dataSource,
        JdbcFence jdbcFence,
        LeadershipTerms terms,
        ObjectProvider<FenceListener> listeners) {
      List<FenceListener> all = listeners.orderedStream().toList();
      return new TransactionFence(dataSource, jdbcFence, terms, composite(all));
    }

    @Bean
    @ConditionalOnBean(Elections.class)
    FenceTermStarts conchFenceTermStarts(
        ObjectProvider<Elections> elections, TransactionFence transactionFence) {
      return new FenceTermStarts(elections::getIfAvailable, transactionFence);
    }

    /** The fence table checked once at start-up: missing, it stops a start with @Fenced methods. */
    @Bean
    FenceTableCheck conchFenceTableCheck(
        DataSource dataSource,
        JdbcFence jdbcFence,
        FenceJdbcProperties properties,
        ObjectProvider<FencedAnnotationBeanPostProcessor> fencedMethods,
        ListableBeanFactory beanFactory) {
      String[] names =
          BeanFactoryUtils.beanNamesForTypeIncludingAncestors(beanFactory, DataSource.class);
      return new FenceTableCheck(
          dataSource,
          (names.length == 1) ? names[0] : null,
          jdbcFence,
          properties,
          fencedMethods.getIfAvailable());
    }

    @Bean
    @ConditionalOnMissingBean
    @Conditional(OnFenceSchemaInitializationCondition.class)
    FenceSchemaInitializer conchFenceSchemaInitializer(
        DataSource dataSource, FenceJdbcProperties properties) {
      return new FenceSchemaInitializer(dataSource, properties);
    }

    private static FenceListener composite(List<FenceListener> listeners) {
      if (listeners.isEmpty()) {
        return FenceListener.NONE;
      }
      if (listeners.size() == 1) {
        return listeners.get(0);
      }
      return new FenceListener() {
        @Override
        public void committed(String office, long token) {
          listeners.forEach(listener -> listener.committed(office, token));
        }

        @Override
        public void refused(dev.conch.jdbc.StaleTokenException refusal) {
          listeners.forEach(listener -> listener.refused(refusal));
        }
      };
    }
  }

  /** The {@code conch.fence} meter: a {@code MeterBinder} Boot binds to its registries. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(MeterRegistry.class)
  @ConditionalOnBean(MeterRegistry.class)
  static class FenceMetricsConfiguration {

    @Bean
    @ConditionalOnMissingBean
    FenceMetrics conchFenceMetrics() {
      return new FenceMetrics();
    }
  }

  /** Initializes the fence table unless {@code conch.fence.jdbc.initialize-schema=never}. */
  static class OnFenceSchemaInitializationCondition extends OnDatabaseInitializationCondition {

    OnFenceSchemaInitializationCondition() {
      super("Conch fence", "conch.fence.jdbc.initialize-schema");
    }
  }
}
