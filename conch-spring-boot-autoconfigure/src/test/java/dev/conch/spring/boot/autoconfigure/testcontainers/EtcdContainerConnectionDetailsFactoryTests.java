package dev.conch.spring.boot.autoconfigure.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetailsFactory;
import org.springframework.core.io.support.SpringFactoriesLoader;

/** The factory is found where Spring Boot looks for connection details factories. */
class EtcdContainerConnectionDetailsFactoryTests {

  @Test
  void factoryIsRegisteredForServiceConnections() {
    List<ConnectionDetailsFactory> factories =
        SpringFactoriesLoader.forDefaultResourceLocation().load(ConnectionDetailsFactory.class);

    assertThat(factories).hasAtLeastOneElementOfType(EtcdContainerConnectionDetailsFactory.class);
  }
}
