package dev.conch.spring.fence;

import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.test.context.TestPropertySource;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The fence on an embedded H2 database with Spring Boot's defaults (the fence table created by the
 * embedded default), JDBC only: Spring Boot's {@code JdbcTransactionManager}.
 */
@TestPropertySource(
    properties =
        "spring.autoconfigure.exclude="
            + "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration,"
            + "org.springframework.boot.data.jpa.autoconfigure.DataJpaRepositoriesAutoConfiguration")
class H2JdbcFenceTest extends JdbcFenceContract {

  @Override
  Class<? extends PlatformTransactionManager> expectedTransactionManager() {
    return JdbcTransactionManager.class;
  }
}
