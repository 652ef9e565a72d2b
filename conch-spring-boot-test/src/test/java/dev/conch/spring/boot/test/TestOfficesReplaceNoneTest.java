package dev.conch.spring.boot.test;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conch.Election;
import dev.conch.etcd.EtcdSession;
import dev.conch.local.LocalOffices;
import dev.conch.spring.boot.test.AutoConfigureTestOffices.Replace;
import dev.conch.test.EtcdExtension;
import dev.conch.test.Etcdctl;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;

/**
 * {@code @AutoConfigureTestOffices(replace = NONE)} keeps the application's election: it elects in
 * its etcd (here the extension's, as a {@code @ServiceConnection} container would give it), and the
 * test kit adds no in-memory offices.
 */
@SpringBootTest(
    properties = {"spring.application.name=ledger", "conch.candidate.id=me"},
    webEnvironment = SpringBootTest.WebEnvironment.NONE)
@AutoConfigureTestOffices(replace = Replace.NONE)
@Timeout(120)
class TestOfficesReplaceNoneTest {

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  @Autowired ApplicationContext context;

  @Autowired Election election;

  @Test
  void applicationKeepsItsElectionInEtcd() throws InterruptedException {
    assertThat(this.context.getEnvironment().getProperty("conch.test.offices.replace"))
        .isEqualToIgnoringCase("none");
    assertThat(this.context.getEnvironment().getProperty("conch.standalone")).isNull();
    assertThat(this.context.getBeanNamesForType(TestOffices.class)).isEmpty();
    assertThat(this.context.getBeanNamesForType(LocalOffices.class)).isEmpty();
    assertThat(this.context.getBeanNamesForType(EtcdSession.class)).hasSize(1);

    assertThat(this.election.awaitLeadership(Duration.ofSeconds(30))).isTrue();
    Etcdctl.Result keys =
        Etcdctl.run(
            etcd.cluster().endpoints(),
            Duration.ofSeconds(10),
            "get",
            "",
            "--prefix",
            "--keys-only");
    assertThat(keys.succeeded()).as(keys.stderr()).isTrue();
    assertThat(keys.stdout()).contains("ledger");
  }

  @SpringBootConfiguration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class App {}
}
