package dev.conch.spring.boot.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.Election;
import dev.conch.spring.boot.autoconfigure.ConchAutoConfiguration;
import dev.conch.spring.boot.autoconfigure.EtcdConnectionDetails;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.context.TestPropertySource;
import org.springframework.test.context.junit.jupiter.SpringJUnitConfig;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.utility.DockerImageName;

/**
 * An etcd container as a {@code @ServiceConnection}. Skipped where Docker is not available
 * (Testcontainers reports it as disabled: "disabledWithoutDocker is true and Docker is not
 * available"); the real-etcd tests of this module do not need Docker.
 */
@Testcontainers(disabledWithoutDocker = true)
@SpringJUnitConfig
@TestPropertySource(properties = "conch.office=testcontainers")
class EtcdContainerConnectionDetailsFactoryDockerTest {

  @Container @ServiceConnection
  static final GenericContainer<?> etcd =
      new GenericContainer<>(DockerImageName.parse("gcr.io/etcd-development/etcd:v3.5.21"))
          .withCommand(
              "etcd",
              "--listen-client-urls=http://0.0.0.0:2379",
              "--advertise-client-urls=http://127.0.0.1:2379")
          .withExposedPorts(EtcdContainerConnectionDetailsFactory.ETCD_PORT);

  @Autowired private EtcdConnectionDetails connectionDetails;

  @Autowired private Election election;

  @Test
  void connectionDetailsPointAtTheContainerAndTheInstanceLeads() throws Exception {
    assertThat(this.connectionDetails.getEndpoints())
        .singleElement()
        .satisfies(
            endpoint ->
                assertThat(endpoint.getPort())
                    .isEqualTo(
                        etcd.getMappedPort(EtcdContainerConnectionDetailsFactory.ETCD_PORT)));
    assertThat(this.election.awaitLeadership(Duration.ofSeconds(30))).isTrue();
  }

  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration(ConchAutoConfiguration.class)
  static class Config {}
}
