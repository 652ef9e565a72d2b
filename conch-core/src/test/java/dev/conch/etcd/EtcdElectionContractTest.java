package dev.conch.etcd;

import dev.conch.Election;
import dev.conch.ElectionContractTest;
import dev.conch.ElectionOptions;
import dev.conch.FencedLock;
import dev.conch.test.EtcdExtension;
import io.etcd.jetcd.Client;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The shared contract against one real etcd member: each candidate has a session of its own. */
class EtcdElectionContractTest extends ElectionContractTest {

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private final Etcds etcds = new Etcds();
  private Client client;

  private Client client() {
    if (client == null) {
      client = etcds.client(etcd.cluster());
    }
    return client;
  }

  private SessionOptions options() {
    return SessionOptions.defaults()
        .withTtl(Duration.ofSeconds(10))
        .withTimeout(Duration.ofSeconds(3));
  }

  @Override
  protected Election newElection(ElectionOptions options) {
    return etcds.session(client(), options()).election(options);
  }

  @Override
  protected FencedLock lock(String office) {
    return new EtcdOffice(etcds.session(client(), options()), office);
  }

  @AfterEach
  void closeSessions() {
    etcds.close();
    client = null;
  }
}
