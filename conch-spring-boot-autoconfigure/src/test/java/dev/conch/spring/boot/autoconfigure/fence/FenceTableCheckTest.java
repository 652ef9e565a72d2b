package dev.conch.spring.boot.autoconfigure.fence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.fence.Fenced;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.annotation.Transactional;

/**
 * The fence table is checked once at start-up (H2): missing, it stops a start with {@code @Fenced}
 * methods, explained (the table, the DataSource, what to do); without {@code @Fenced} methods it is
 * one WARN; present, nothing is said.
 */
@Timeout(60)
@ExtendWith(OutputCaptureExtension.class)
class FenceTableCheckTest {

  private static final String WARNING = "The conch fence table 'conch_fence' does not exist";

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
              "spring.datasource.type=org.springframework.jdbc.datasource.SimpleDriverDataSource");

  @Test
  void aMissingTableStopsAStartWithFencedMethodsNamingTableDataSourceAndWhatToDo() {
    this.contextRunner
        .withPropertyValues("conch.fence.jdbc.initialize-schema=never")
        .withBean(Writer.class)
        .run(
            context -> {
              assertThat(context).hasFailed();
              FenceTableMissingAtStartupException failure =
                  findCause(context.getStartupFailure(), FenceTableMissingAtStartupException.class);
              FailureAnalysis analysis =
                  new FenceTableMissingFailureAnalyzer().analyze(context.getStartupFailure());
              assertThat(analysis).isNotNull();
              assertThat(analysis.getDescription())
                  .contains("'conch_fence'")
                  .contains("the DataSource 'dataSource' (jdbc:h2:mem:")
                  .contains(Writer.class.getName() + ".store()");
              assertThat(analysis.getAction())
                  .contains("conch.fence.jdbc.initialize-schema=always")
                  .contains("dev/conch/jdbc/schema-h2.sql");
              assertThat(failure.fencedMethods())
                  .containsExactly(Writer.class.getName() + ".store()");
            });
  }

  @Test
  void aMissingTableWithoutFencedMethodsIsOneWarningAndTheStartGoesOn(CapturedOutput output) {
    this.contextRunner
        .withPropertyValues("conch.fence.jdbc.initialize-schema=never")
        .run(context -> assertThat(context).hasNotFailed());
    assertThat(warnings(output))
        .singleElement()
        .asString()
        .contains("WARN")
        .contains("jdbc:h2:mem:")
        .contains("conch.fence.jdbc.initialize-schema=always")
        .contains("dev/conch/jdbc/schema-h2.sql");
  }

  @Test
  void aTableTheUserCreatedPassesWithNothingSaid(@TempDir Path directory, CapturedOutput output) {
    String url = "spring.datasource.url=jdbc:h2:file:" + directory.resolve("db");
    // The user's migration, here conch's own initializer in a first start.
    this.contextRunner
        .withPropertyValues(url, "conch.fence.jdbc.initialize-schema=always")
        .run(context -> assertThat(context).hasNotFailed());
    this.contextRunner
        .withPropertyValues(url, "conch.fence.jdbc.initialize-schema=never")
        .withBean(Writer.class)
        .run(context -> assertThat(context).hasNotFailed());
    assertThat(warnings(output)).isEmpty();
  }

  @Test
  void anEmbeddedDatabaseGetsItsTableAndPassesWithNothingSaid(CapturedOutput output) {
    this.contextRunner.withBean(Writer.class).run(context -> assertThat(context).hasNotFailed());
    assertThat(warnings(output)).isEmpty();
  }

  @Test
  void aSpringApplicationStoppedByAMissingTableSaysWhyOnce(CapturedOutput output) {
    SpringApplicationBuilder application =
        new SpringApplicationBuilder(FencingApplication.class).web(WebApplicationType.NONE);
    assertThatThrownBy(
            () ->
                application.run(
                    "--spring.main.banner-mode=off",
                    "--conch.standalone=true",
                    "--conch.office=reports",
                    "--conch.fence.jdbc.initialize-schema=never",
                    "--spring.datasource.generate-unique-name=true",
                    "--spring.datasource.type="
                        + "org.springframework.jdbc.datasource.SimpleDriverDataSource"))
        .hasRootCauseInstanceOf(org.h2.jdbc.JdbcSQLSyntaxErrorException.class);
    assertThat(output.toString())
        .contains("APPLICATION FAILED TO START")
        .contains("The conch fence table 'conch_fence' does not exist in the DataSource")
        .contains("set conch.fence.jdbc.initialize-schema=always")
        .contains("run the script dev/conch/jdbc/schema-h2.sql");
  }

  private static List<String> warnings(CapturedOutput output) {
    return output.toString().lines().filter(line -> line.contains(WARNING)).toList();
  }

  private static <T extends Throwable> T findCause(Throwable failure, Class<T> type) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (type.isInstance(cause)) {
        return type.cast(cause);
      }
    }
    throw new AssertionError("No " + type.getSimpleName() + " in " + failure, failure);
  }

  static class Writer {

    @Fenced
    @Transactional
    public void store() {}
  }

  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration({
    ConchAutoConfiguration.class,
    ConchFenceAutoConfiguration.class,
    DataSourceAutoConfiguration.class,
    DataSourceTransactionManagerAutoConfiguration.class,
    TransactionAutoConfiguration.class
  })
  static class FencingApplication {

    @Bean
    Writer writer() {
      return new Writer();
    }
  }
}
