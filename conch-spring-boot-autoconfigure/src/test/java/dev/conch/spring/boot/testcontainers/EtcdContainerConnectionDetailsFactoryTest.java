package dev.conch.spring.boot.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetailsFactory;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.FailureHandler;

/** The factory is found where Spring Boot looks for connection details factories. */
class EtcdContainerConnectionDetailsFactoryTest {

  @Test
  void factoryIsRegisteredForServiceConnections() {
    // As Spring Boot loads them: a factory of another module whose dependencies are absent (the
    // metrics module's Docker Compose factory, on this class path) is skipped, not fatal.
    List<ConnectionDetailsFactory> factories =
        SpringFactoriesLoader.forDefaultResourceLocation()
            .load(
                ConnectionDetailsFactory.class,
                FailureHandler.logging(LogFactory.getLog(getClass())));

    assertThat(factories).hasAtLeastOneElementOfType(EtcdContainerConnectionDetailsFactory.class);
  }
}
