package dev.conch.spring.fence;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.boot.autoconfigure.fence.ConchFenceAutoConfiguration;
import dev.conch.test.PostgresExtension;
import dev.conch.test.PostgresServer;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.transaction.annotation.Transactional;

/**
 * The start-up check of the fence table on a real PostgreSQL server: a missing table stops a start
 * with {@code @Fenced} methods, naming the table and the DataSource; a table created beforehand
 * passes.
 */
@Timeout(120)
class PostgresFenceTableCheckTest {

  @RegisterExtension static final PostgresExtension postgres = PostgresExtension.create();

  private final String table = "fence_" + Math.abs(ThreadLocalRandom.current().nextInt());

  private final ApplicationContextRunner contextRunner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ConchAutoConfiguration.class,
                  ConchFenceAutoConfiguration.class,
                  DataSourceAutoConfiguration.class,
                  DataSourceTransactionManagerAutoConfiguration.class,
                  TransactionAutoConfiguration.class))
          .withPropertyValues(
              "conch.standalone=true",
              "spring.application.name=reports",
              "spring.datasource.url=" + postgres.server().jdbcUrl(),
              "spring.datasource.username=" + PostgresServer.USER,
              "conch.fence.jdbc.table=" + this.table)
          .withBean(Writer.class);

  @Test
  void aMissingTableStopsAStartWithFencedMethods() {
    this.contextRunner
        .withPropertyValues("conch.fence.jdbc.initialize-schema=never")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(context.getStartupFailure()).rootCause().hasMessageContaining(this.table);
              assertThat(messages(context.getStartupFailure()))
                  .contains(
                      "The fence table '"
                          + this.table
                          + "' does not exist in the DataSource 'dataSource' (jdbc:postgresql://")
                  .contains("PostgreSQL");
            });
  }

  @Test
  void aTableCreatedBeforehandPasses() {
    this.contextRunner
        .withPropertyValues("conch.fence.jdbc.initialize-schema=always")
        .run(context -> assertThat(context).hasNotFailed());
    this.contextRunner
        .withPropertyValues("conch.fence.jdbc.initialize-schema=never")
        .run(context -> assertThat(context).hasNotFailed());
  }

  private static String messages(Throwable failure) {
    StringBuilder all = new StringBuilder();
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      all.append(cause.getMessage()).append('\n');
    }
    return all.toString();
  }

  static class Writer {

    @Fenced
    @Transactional
    public void store() {}
  }
}
