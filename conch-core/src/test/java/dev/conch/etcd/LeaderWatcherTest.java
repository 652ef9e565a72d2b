package dev.conch.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.EtcdUnavailableException;
import dev.conch.Holder;
import dev.conch.State;
import dev.conch.test.EtcdExtension;
import io.etcd.jetcd.Client;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link LeaderWatcher} over jetcd against a real etcd member: what an observer of an office (the
 * actuator, a dashboard) sees, one line per change of leader, a vacancy included.
 */
@Timeout(60)
class LeaderWatcherTest {

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private static final Duration WAIT = Duration.ofSeconds(20);

  private static final SessionOptions OPTIONS =
      SessionOptions.defaults().withTimeout(Duration.ofSeconds(2));

  private final Etcds etcds = new Etcds();
  private Thread watching;

  @AfterEach
  void close() throws InterruptedException {
    if (watching != null) {
      watching.interrupt();
      watching.join(WAIT.toMillis());
    }
    etcds.close();
  }

  @Test
  void seesEachLeaderInTurnAndTheVacancyBetween() throws InterruptedException {
    Client client = etcds.client(etcd.cluster());
    Election a = candidate(client, "watched", "a");
    a.start();
    assertThat(a.awaitLeadership(WAIT)).isTrue();
    long aToken = a.token().orElseThrow();
    List<Optional<Holder>> seen = watch(client, "watched");
    await().atMost(WAIT).until(() -> seen.size() == 1);
    Election b = candidate(client, "watched", "b");
    b.start();
    await().atMost(WAIT).until(() -> b.state() == State.FOLLOWING);

    a.resign();
    await().atMost(WAIT).until(() -> seen.size() == 2);
    b.resign();
    await().atMost(WAIT).until(() -> seen.size() == 3);

    assertThat(seen.get(0).orElseThrow().id()).isEqualTo("a");
    assertThat(seen.get(0).orElseThrow().rev()).isEqualTo(aToken);
    assertThat(seen.get(1).orElseThrow().id()).isEqualTo("b");
    assertThat(seen.get(1).orElseThrow().rev()).isGreaterThan(seen.get(0).orElseThrow().rev());
    assertThat(seen.get(2)).isEmpty();
  }

  @Test
  void anUnreachableEtcdOnTheFirstReadIsAnErrorNamingTheOffice() {
    Client nowhere = etcds.client("http://127.0.0.1:1");
    LeaderWatcher watcher =
        new LeaderWatcher(LeaderWatcher.source(nowhere), OPTIONS, "nowhere", leader -> {});

    assertThatThrownBy(watcher::run)
        .isInstanceOf(EtcdUnavailableException.class)
        .hasMessageStartingWith("reading the candidates of office 'nowhere' failed");
  }

  private Election candidate(Client client, String office, String id) {
    EtcdSession session = etcds.session(client, OPTIONS);
    return session.election(ElectionOptions.builder(office).candidateId(id).build());
  }

  private List<Optional<Holder>> watch(Client client, String office) {
    List<Optional<Holder>> seen = new CopyOnWriteArrayList<>();
    LeaderWatcher watcher =
        new LeaderWatcher(LeaderWatcher.source(client), OPTIONS, office, seen::add);
    watching =
        new Thread(
            () -> {
              try {
                watcher.run();
              } catch (InterruptedException e) {
                // the test is over
              }
            },
            "leader-watcher-test");
    watching.start();
    return seen;
  }
}
