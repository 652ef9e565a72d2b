package dev.conch.spring.fence;

import dev.conch.test.PostgresExtension;
import dev.conch.test.PostgresServer;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The fence on a real PostgreSQL server, JDBC only: Spring Boot's {@code JdbcTransactionManager}.
 */
@TestPropertySource(
    properties =
        "spring.autoconfigure.exclude="
            + "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration,"
            + "org.springframework.boot.data.jpa.autoconfigure.DataJpaRepositoriesAutoConfiguration")
class PostgresJdbcFenceTest extends JdbcFenceContract {

  @RegisterExtension static final PostgresExtension postgres = PostgresExtension.create();

  @DynamicPropertySource
  static void postgres(DynamicPropertyRegistry registry) {
    registry.add("spring.datasource.url", () -> postgres.server().jdbcUrl());
    registry.add("spring.datasource.username", () -> PostgresServer.USER);
    registry.add("conch.fence.jdbc.initialize-schema", () -> "always");
  }

  @Override
  Class<? extends PlatformTransactionManager> expectedTransactionManager() {
    return JdbcTransactionManager.class;
  }
}
