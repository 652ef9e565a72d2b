package dev.conch.spring.boot.autoconfigure.fence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.jdbc.FenceSchema;
import dev.conch.jdbc.JdbcFence;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.boot.autoconfigure.InvalidMethodFailureAnalyzer;
import dev.conch.spring.fence.Fenced;
import dev.conch.spring.fence.FencedAnnotationBeanPostProcessor;
import dev.conch.spring.fence.InvalidFencedMethodException;
import dev.conch.spring.fence.LeadershipTerms;
import dev.conch.spring.fence.TransactionFence;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The fence's auto-configuration: when it applies, when it backs off, and what its properties do,
 * on an embedded H2 database. What a fenced transaction does is tested in conch-spring-boot-test,
 * where {@code TestOffices} scripts who leads.
 */
@Timeout(60)
class ConchFenceAutoConfigurationTest {

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ConchAutoConfiguration.class,
                  ConchFenceAutoConfiguration.class,
                  DataSourceAutoConfiguration.class,
                  DataSourceTransactionManagerAutoConfiguration.class,
                  TransactionAutoConfiguration.class,
                  JdbcTemplateAutoConfiguration.class))
          .withPropertyValues(
              "conch.standalone=true",
              "spring.application.name=reports",
              "spring.datasource.generate-unique-name=true",
              // No connection pool on this class path; a plain DataSource for every URL.
              "spring.datasource.type=org.springframework.jdbc.datasource.SimpleDriverDataSource");

  @Test
  void embeddedDatabaseGetsTheFenceAndItsTable() {
    this.contextRunner.run(
        context -> {
          assertThat(context).hasSingleBean(TransactionFence.class);
          assertThat(context).hasSingleBean(FenceSchemaInitializer.class);
          assertThat(context.getBean(JdbcFence.class).table()).isEqualTo("conch_fence");
          assertThat(tableExists(context.getBean(JdbcTemplate.class), "CONCH_FENCE")).isTrue();
        });
  }

  @Test
  void theInitializerInstallsTheGuardOnTheFenceTableAndRetiringPassesIt() {
    this.contextRunner
        .withPropertyValues("conch.fence.jdbc.table=billing_fence")
        .run(
            context -> {
              JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
              jdbc.update(
                  "INSERT INTO billing_fence VALUES ('billing', 7, 'h', CURRENT_TIMESTAMP)");
              assertThatExceptionOfType(DataAccessException.class)
                  .isThrownBy(() -> jdbc.update("DELETE FROM billing_fence"))
                  .withMessageContaining("may not be deleted");
              assertThatExceptionOfType(DataAccessException.class)
                  .isThrownBy(() -> jdbc.update("UPDATE billing_fence SET token = 6"))
                  .withMessageContaining("may not be lowered");
              assertThat(
                      jdbc.execute(
                          (ConnectionCallback<Boolean>)
                              c -> FenceSchema.forTable("billing_fence").retire(c, "billing")))
                  .isTrue();
            });
  }

  @Test
  void guardFalseLeavesTheFenceTableUnguarded() {
    this.contextRunner
        .withPropertyValues("conch.fence.jdbc.guard=false")
        .run(
            context -> {
              JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
              jdbc.update("INSERT INTO conch_fence VALUES ('billing', 7, 'h', CURRENT_TIMESTAMP)");
              assertThat(jdbc.update("DELETE FROM conch_fence")).isEqualTo(1);
            });
  }

  @Test
  void defaultsAreTheFencesOwn() {
    FenceJdbcProperties properties = new FenceJdbcProperties();
    assertThat(properties.getTable()).isEqualTo(JdbcFence.DEFAULT_TABLE);
    assertThat(properties.isGuard()).isTrue();
    assertThat(properties.getInitializeSchema()).isEqualTo(DatabaseInitializationMode.EMBEDDED);
    assertThat(properties.getSchema())
        .isEqualTo(
            "classpath:"
                + dev.conch.jdbc.FenceDialect.H2.schemaLocation().replace("h2", "@@platform@@"));
  }

  @Test
  void tablePropertyNamesTheTableTheFenceUsesAndCreates() {
    this.contextRunner
        .withPropertyValues("conch.fence.jdbc.table=billing_fence")
        .run(
            context -> {
              assertThat(context.getBean(JdbcFence.class).table()).isEqualTo("billing_fence");
              JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
              assertThat(tableExists(jdbc, "BILLING_FENCE")).isTrue();
              assertThat(tableExists(jdbc, "CONCH_FENCE")).isFalse();
            });
  }

  @Test
  void badTableNameFailsStartupNamingItAndWhatIsAccepted() {
    this.contextRunner
        .withPropertyValues("conch.fence.jdbc.table=fence; DROP TABLE x")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("fence; DROP TABLE x")
                    .hasMessageContaining("an SQL identifier"));
  }

  @Test
  void neverLeavesTheTableToTheUserAndTheFenceNamesTableAndScript() {
    this.contextRunner
        .withPropertyValues("conch.fence.jdbc.initialize-schema=never")
        .run(
            context -> {
              assertThat(context).doesNotHaveBean(FenceSchemaInitializer.class);
              assertThat(tableExists(context.getBean(JdbcTemplate.class), "CONCH_FENCE")).isFalse();
              TransactionFence fence = context.getBean(TransactionFence.class);
              Election election = context.getBean(Election.class);
              await().atMost(Duration.ofSeconds(10)).until(election::isLeader);
              TransactionTemplate transaction = context.getBean(TransactionTemplate.class);
              assertThatExceptionOfType(DataAccessException.class)
                  .isThrownBy(() -> transaction.executeWithoutResult(status -> fence.fence()))
                  .withMessageContaining("conch_fence")
                  .withMessageContaining("dev/conch/jdbc/schema-h2.sql");
            });
  }

  @Test
  void embeddedModeLeavesANonEmbeddedDatabaseAlone(@TempDir Path directory) {
    // An H2 file database is not embedded for Spring Boot: as with Spring Session's tables, the
    // default creates the fence table only where the database lives and dies with the app.
    this.contextRunner
        .withPropertyValues("spring.datasource.url=jdbc:h2:file:" + directory.resolve("db"))
        .run(
            context -> {
              assertThat(context).hasSingleBean(FenceSchemaInitializer.class);
              assertThat(tableExists(context.getBean(JdbcTemplate.class), "CONCH_FENCE")).isFalse();
            });
  }

  @Test
  void alwaysCreatesTheTableInANonEmbeddedDatabaseAndAgainWithoutHarm(@TempDir Path directory) {
    String url = "spring.datasource.url=jdbc:h2:file:" + directory.resolve("db");
    for (int start = 0; start < 2; start++) {
      this.contextRunner
          .withPropertyValues(url, "conch.fence.jdbc.initialize-schema=always")
          .run(
              context ->
                  assertThat(tableExists(context.getBean(JdbcTemplate.class), "CONCH_FENCE"))
                      .isTrue());
    }
  }

  @Test
  void userBeansWin() {
    JdbcFence own = JdbcFence.forTable("own_fence");
    LeadershipTerms terms =
        new LeadershipTerms() {
          @Override
          public Optional<String> defaultOffice() {
            return Optional.empty();
          }

          @Override
          public Optional<dev.conch.Leadership> current(String office) {
            return Optional.empty();
          }
        };
    this.contextRunner
        .withBean(JdbcFence.class, () -> own)
        .withBean(LeadershipTerms.class, () -> terms)
        .run(
            context -> {
              assertThat(context.getBean(JdbcFence.class)).isSameAs(own);
              assertThat(context.getBean(LeadershipTerms.class)).isSameAs(terms);
              assertThat(context.getBean(TransactionFence.class).jdbcFence()).isSameAs(own);
            });
  }

  @Test
  void userTransactionFenceWins() {
    this.contextRunner
        .withUserConfiguration(OwnFence.class)
        .run(
            context ->
                assertThat(context.getBean(TransactionFence.class))
                    .isSameAs(context.getBean("ownFence")));
  }

  @Test
  void withoutConchJdbcNothingIsConfigured() {
    this.contextRunner
        .withClassLoader(new FilteredClassLoader(JdbcFence.class))
        .run(
            context -> {
              assertThat(context).doesNotHaveBean(TransactionFence.class);
              assertThat(context).doesNotHaveBean(FencedAnnotationBeanPostProcessor.class);
              assertThat(context).doesNotHaveBean(FenceJdbcProperties.class);
            });
  }

  @Test
  void withoutSpringTransactionsNothingIsConfigured() {
    this.contextRunner
        .withClassLoader(new FilteredClassLoader("org.springframework.transaction"))
        .run(context -> assertThat(context).doesNotHaveBean(TransactionFence.class));
  }

  @Test
  void withoutADataSourceFencedMethodsAreStillInterceptedAndFailClosed() {
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(ConchAutoConfiguration.class, ConchFenceAutoConfiguration.class))
        .withPropertyValues("conch.standalone=true", "spring.application.name=reports")
        .run(
            context -> {
              assertThat(context).doesNotHaveBean(TransactionFence.class);
              assertThat(context).doesNotHaveBean(FenceSchemaInitializer.class);
              assertThat(context).hasSingleBean(FencedAnnotationBeanPostProcessor.class);
            });
  }

  @Test
  void meterRegistryGetsTheFenceMeter() {
    this.contextRunner
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .run(context -> assertThat(context).hasSingleBean(FenceMetrics.class));
  }

  @Test
  void fenceMeterIsAMeterBinderBootBindsToTheRegistryItCreates() {
    this.contextRunner
        .withConfiguration(
            AutoConfigurations.of(
                MetricsAutoConfiguration.class,
                SimpleMetricsExportAutoConfiguration.class,
                CompositeMeterRegistryAutoConfiguration.class))
        .run(
            context -> {
              assertThat(context).getBean(FenceMetrics.class).isInstanceOf(MeterBinder.class);
              MeterRegistry registry = context.getBean(MeterRegistry.class);
              assertThat(registry).isInstanceOf(SimpleMeterRegistry.class);

              context.getBean(FenceMetrics.class).committed("reports", 7);

              assertThat(
                      registry
                          .get("conch.fence")
                          .tags("conch.office", "reports", "conch.outcome", "passed")
                          .counter()
                          .count())
                  .isEqualTo(1);
            });
  }

  @Test
  void withoutMeterRegistryThereIsNoMeter() {
    this.contextRunner.run(context -> assertThat(context).doesNotHaveBean(FenceMetrics.class));
  }

  @Test
  void fencedMethodThatIsNotTransactionalFailsStartupAndIsExplained() {
    this.contextRunner
        .withBean(Untransactional.class)
        .run(
            context -> {
              assertThat(context).hasFailed();
              InvalidFencedMethodException failure =
                  findCause(context.getStartupFailure(), InvalidFencedMethodException.class);
              assertThat(failure)
                  .hasMessageContaining("Untransactional.store()")
                  .hasMessageContaining("is not transactional");
              FailureAnalysis analysis =
                  new InvalidMethodFailureAnalyzer().analyze(context.getStartupFailure());
              assertThat(analysis.getDescription()).contains("Untransactional.store()");
              assertThat(analysis.getAction()).contains("@Transactional");
            });
  }

  @Test
  void fencedMethodThatRunsWithoutATransactionFailsStartup() {
    this.contextRunner
        .withBean(NeverTransactional.class)
        .run(
            context ->
                assertThat(
                        findCause(context.getStartupFailure(), InvalidFencedMethodException.class))
                    .hasMessageContaining("NeverTransactional.store()")
                    .hasMessageContaining("NOT_SUPPORTED"));
  }

  @Test
  void finalFencedMethodFailsStartup() {
    this.contextRunner
        .withBean(FinalFenced.class)
        .run(
            context ->
                assertThat(
                        findCause(context.getStartupFailure(), InvalidFencedMethodException.class))
                    .hasMessageContaining("FinalFenced.store()")
                    .hasMessageContaining("final"));
  }

  @Test
  void fencedMethodOfASecondTransactionManagerFailsStartup() {
    this.contextRunner
        .withUserConfiguration(SecondDatabase.class)
        .withBean(SecondDatabaseWriter.class)
        .run(
            context -> {
              InvalidFencedMethodException failure =
                  findCause(context.getStartupFailure(), InvalidFencedMethodException.class);
              assertThat(failure)
                  .hasMessageContaining("SecondDatabaseWriter.store()")
                  .hasMessageContaining("'otherTransactionManager'")
                  .hasMessageContaining("another DataSource than the fence's");
            });
  }

  @Test
  void fencedMethodOfTheFencesTransactionManagerByNameIsAccepted() {
    this.contextRunner
        .withUserConfiguration(SecondDatabase.class)
        .withBean(FirstDatabaseWriter.class)
        .run(context -> assertThat(context).hasNotFailed());
  }

  @Test
  void fencedMethodOnATransactionalClassIsAccepted() {
    this.contextRunner
        .withBean(TransactionalClass.class)
        .run(context -> assertThat(context).hasNotFailed());
  }

  private static boolean tableExists(JdbcTemplate jdbc, String table) {
    Integer count =
        jdbc.queryForObject(
            "SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME = ?",
            Integer.class,
            table);
    return count != null && count > 0;
  }

  private static <T extends Throwable> T findCause(Throwable failure, Class<T> type) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (type.isInstance(cause)) {
        return type.cast(cause);
      }
    }
    throw new AssertionError("No " + type.getSimpleName() + " in " + failure, failure);
  }

  @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
  static class OwnFence {

    @org.springframework.context.annotation.Bean
    TransactionFence ownFence(DataSource dataSource, LeadershipTerms terms) {
      return new TransactionFence(
          dataSource, JdbcFence.create(), terms, dev.conch.spring.fence.FenceListener.NONE);
    }
  }

  /** A second database with its own transaction manager beside the fence's (the primary). */
  @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
  static class SecondDatabase {

    @org.springframework.context.annotation.Bean
    @org.springframework.context.annotation.Primary
    DataSource dataSource() {
      return new org.springframework.jdbc.datasource.SimpleDriverDataSource(
          new org.h2.Driver(),
          "jdbc:h2:mem:first-" + java.util.UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    }

    @org.springframework.context.annotation.Bean
    DataSource otherDataSource() {
      return new org.springframework.jdbc.datasource.SimpleDriverDataSource(
          new org.h2.Driver(),
          "jdbc:h2:mem:second-" + java.util.UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    }

    @org.springframework.context.annotation.Bean
    @org.springframework.context.annotation.Primary
    org.springframework.jdbc.support.JdbcTransactionManager transactionManager(
        DataSource dataSource) {
      return new org.springframework.jdbc.support.JdbcTransactionManager(dataSource);
    }

    @org.springframework.context.annotation.Bean
    org.springframework.jdbc.support.JdbcTransactionManager otherTransactionManager(
        @org.springframework.beans.factory.annotation.Qualifier("otherDataSource")
            DataSource otherDataSource) {
      return new org.springframework.jdbc.support.JdbcTransactionManager(otherDataSource);
    }
  }

  static class SecondDatabaseWriter {

    @Fenced
    @Transactional("otherTransactionManager")
    public void store() {}
  }

  static class FirstDatabaseWriter {

    @Fenced
    @Transactional("transactionManager")
    public void store() {}
  }

  static class Untransactional {

    @Fenced
    public void store() {}
  }

  static class NeverTransactional {

    @Fenced
    @Transactional(
        propagation = org.springframework.transaction.annotation.Propagation.NOT_SUPPORTED)
    public void store() {}
  }

  static class FinalFenced {

    @Fenced
    @Transactional
    public final void store() {}
  }

  @Transactional
  static class TransactionalClass {

    @Fenced
    public void store() {}
  }
}
