package dev.conch.spring.boot.autoconfigure.leaderonly;

import dev.conch.Election;
import dev.conch.Holder;
import dev.conch.etcd.EtcdSession;
import dev.conch.local.LocalOffices;
import dev.conch.spring.Elections;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.leaderonly.EtcdJobRecords;
import dev.conch.spring.leaderonly.InMemoryJobRecords;
import dev.conch.spring.leaderonly.JobRecords;
import dev.conch.spring.leaderonly.LeaderOnly;
import dev.conch.spring.leaderonly.LeaderOnlyAnnotationBeanPostProcessor;
import dev.conch.spring.leaderonly.LeaderOnlyJobs;
import dev.conch.spring.leaderonly.LeaderOnlyTasks;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * {@link EnableAutoConfiguration Auto-configuration} for {@link LeaderOnly @LeaderOnly} methods:
 * the post-processor that guards them, their meter when the application has a {@link
 * MeterRegistry}, and the records of the {@code @Scheduled} firings of those with a misfire policy
 * (read and written only for them): in etcd next to the offices, or in memory beside the in-memory
 * offices; and the {@link LeaderOnlyTasks} bean, which guards tasks built at run time by the same
 * means.
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

  /** The jobs: a bean so that it hears of each acquired office and stops its thread on close. */
  @Bean
  LeaderOnlyJobs conchLeaderOnlyJobs(LeaderOnlyAnnotationBeanPostProcessor postProcessor) {
    return postProcessor.jobs();
  }

  @Bean
  @ConditionalOnMissingBean(JobRecords.class)
  @ConditionalOnBean(EtcdSession.class)
  EtcdJobRecords conchJobRecords(EtcdSession etcdSession) {
    return new EtcdJobRecords(etcdSession);
  }

  /** Beside the in-memory offices (standalone, the test kit): fenced by their current leader. */
  @Bean
  @ConditionalOnMissingBean(JobRecords.class)
  @ConditionalOnBean(LocalOffices.class)
  InMemoryJobRecords conchInMemoryJobRecords(LocalOffices localOffices) {
    return new InMemoryJobRecords(
        office -> localOffices.leader(office).map(Holder::rev).orElse(0L));
  }
}
