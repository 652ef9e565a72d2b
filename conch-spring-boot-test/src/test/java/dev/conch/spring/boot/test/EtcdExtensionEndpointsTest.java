package dev.conch.spring.boot.test;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.Election;
import dev.conch.test.EtcdExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;

/**
 * A static {@link EtcdExtension} field is all a test needs to elect in a real etcd: no
 * {@code @DynamicPropertySource}, and an endpoint set in the environment does not leak in.
 */
@SpringBootTest(
    properties = {"spring.application.name=ledger", "conch.candidate.id=me"},
    webEnvironment = SpringBootTest.WebEnvironment.NONE)
@Timeout(120)
class EtcdExtensionEndpointsTest {

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  @Autowired Election election;

  @Autowired Environment environment;

  @Test
  void instanceLeadsInTheExtensionsEtcd() throws InterruptedException {
    assertThat(this.environment.getProperty("conch.etcd.endpoints"))
        .isEqualTo(etcd.cluster().endpoints());
    assertThat(this.election.awaitLeadership(Duration.ofSeconds(30))).isTrue();
    assertThat(this.election.leader()).hasValueSatisfying(h -> assertThat(h.id()).isEqualTo("me"));
  }

  @SpringBootConfiguration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class App {}
}
