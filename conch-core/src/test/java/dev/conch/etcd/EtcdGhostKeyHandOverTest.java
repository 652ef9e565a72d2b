package dev.conch.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.State;
import dev.conch.test.EtcdExtension;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.kv.TxnResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A leader's key that the ghost-key guard reads (an earlier campaign put of the same lease timed
 * out, so it may land late: {@link GhostKeys}) is the leader's own while its hand-over is on its
 * way. The guard deleted it as soon as the term stopped using it, before the hand-over's
 * transaction was sent: the candidate between the leader and the target then led, not the target.
 * Here the hand-over's transaction is held until the keeper has read the key in three rounds.
 */
@Timeout(120)
class EtcdGhostKeyHandOverTest {

  private static final String OFFICE = "ghost-hand-over";
  private static final Duration WAIT = Duration.ofSeconds(20);

  @RegisterExtension static final EtcdExtension etcd = EtcdExtension.members(1);

  private final Etcds etcds = new Etcds();

  @AfterEach
  void close() {
    etcds.close();
  }

  @Test
  void aGuardedLeaderKeyStaysUntilItsHandOverIsAnswered() throws Exception {
    Client plain = etcds.client(etcd.cluster());
    HeldHandOver held = new HeldHandOver(plain);
    SessionOptions options =
        SessionOptions.defaults()
            .withRenewInterval(Duration.ofMillis(500))
            .withTimeout(Duration.ofSeconds(10));
    EtcdSession leaderSession = etcds.session(held.client(), options);
    Election a = elect(leaderSession, "a");
    assertThat(a.awaitLeadership(WAIT)).isTrue();
    Election b = elect(etcds.session(plain, options), "b");
    await().atMost(WAIT).until(() -> b.state() == State.FOLLOWING);
    Election t = elect(etcds.session(plain, options), "t");
    await().atMost(WAIT).until(() -> t.state() == State.FOLLOWING);

    // As a withdrawal whose put's revision was unknown leaves it: the key is read in every round.
    LeaseKeeper.Lease lease = leaderSession.lease().get(10, TimeUnit.SECONDS);
    ByteSequence key = new EtcdOffice(leaderSession, OFFICE).keyOf(lease);
    leaderSession.ghosts().guard(key, lease);
    AtomicInteger rounds = new AtomicInteger();
    etcds.track(leaderSession.listen(rounds::incrementAndGet)::run);

    CompletableFuture<Void> transfer = CompletableFuture.runAsync(() -> a.transfer("t"));
    await().atMost(WAIT).until(held.intercepted::isDone);
    int from = rounds.get();
    await().atMost(WAIT).until(() -> rounds.get() >= from + 3);
    held.release.complete(null);
    transfer.get(30, TimeUnit.SECONDS);

    await().atMost(WAIT).until(t::isLeader);
    assertThat(b.isLeader()).isFalse();
    assertThat(held.answer.get(10, TimeUnit.SECONDS).isSucceeded())
        .as("the hand-over's compares held: the leader's key was still there")
        .isTrue();
  }

  private Election elect(EtcdSession session, String id) {
    Election election = session.election(ElectionOptions.builder(OFFICE).candidateId(id).build());
    etcds.track(election);
    election.start();
    return election;
  }

  /**
   * A client that holds the first hand-over transaction (three compares or more) until released.
   */
  private static final class HeldHandOver {
    private final Client real;
    final CompletableFuture<Void> intercepted = new CompletableFuture<>();
    final CompletableFuture<Void> release = new CompletableFuture<>();
    final CompletableFuture<TxnResponse> answer = new CompletableFuture<>();

    HeldHandOver(Client real) {
      this.real = real;
    }

    Client client() {
      return Etcds.interceptTxns(real, this::commit);
    }

    /**
     * Sends a transaction at once, or the first hand-over (three compares or more) once released.
     */
    private CompletableFuture<TxnResponse> commit(Etcds.RecordedTxn txn) {
      if (txn.cmps.size() < 3 || !intercepted.complete(null)) {
        return txn.send(real);
      }
      CompletableFuture<TxnResponse> sent = release.thenCompose(go -> txn.send(real));
      sent.whenComplete(
          (response, error) -> {
            if (error != null) {
              answer.completeExceptionally(error);
            } else {
              answer.complete(response);
            }
          });
      return sent;
    }
  }
}
