package dev.conch.spring.fence;

import dev.conch.test.MariaDbExtension;
import dev.conch.test.MariaDbServer;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The fence on a real MariaDB server (InnoDB, REPEATABLE READ) under JPA (Hibernate, Spring Data),
 * the fence table created by {@code conch.fence.jdbc.initialize-schema=always}.
 */
class MariaDbJpaFenceTest extends JpaFenceContract {

  @RegisterExtension static final MariaDbExtension mariadb = MariaDbExtension.create();

  @DynamicPropertySource
  static void mariadb(DynamicPropertyRegistry registry) {
    registry.add("spring.datasource.url", () -> mariadb.server().jdbcUrl());
    registry.add("spring.datasource.username", () -> MariaDbServer.USER);
    registry.add("conch.fence.jdbc.initialize-schema", () -> "always");
    // "create", not "create-drop": the cached context closes after the server stopped.
    registry.add("spring.jpa.hibernate.ddl-auto", () -> "create");
  }
}
