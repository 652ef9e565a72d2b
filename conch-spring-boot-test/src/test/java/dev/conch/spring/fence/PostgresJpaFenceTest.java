package dev.conch.spring.fence;

import dev.conch.test.PostgresExtension;
import dev.conch.test.PostgresServer;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The fence on a real PostgreSQL server under JPA (Hibernate, Spring Data), the fence table created
 * by {@code conch.fence.jdbc.initialize-schema=always} (PostgreSQL is not embedded).
 */
class PostgresJpaFenceTest extends JpaFenceContract {

  @RegisterExtension static final PostgresExtension postgres = PostgresExtension.create();

  @DynamicPropertySource
  static void postgres(DynamicPropertyRegistry registry) {
    registry.add("spring.datasource.url", () -> postgres.server().jdbcUrl());
    registry.add("spring.datasource.username", () -> PostgresServer.USER);
    registry.add("conch.fence.jdbc.initialize-schema", () -> "always");
    // Hibernate creates its tables only in embedded databases by default; "create", not
    // "create-drop": the cached context closes after the server stopped, and a drop would wait
    // for a connection that cannot come.
    registry.add("spring.jpa.hibernate.ddl-auto", () -> "create");
  }
}
