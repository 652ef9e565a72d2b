package dev.conch.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.conch.EtcdUnavailableException;
import dev.conch.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The lease keeper's attempts stay open past their round: after an etcd raft leader change the
 * attempt that waited longest may be the first one answered (the member it reached forwards it to
 * the new leader as soon as that leader's lessor is promoted), and it counts, by its send time.
 */
@Timeout(10)
class OpenAttemptsTest {

  private static final Duration SHORT = Duration.ofMillis(50);

  private final OpenAttempts<String> attempts =
      new OpenAttempts<>(Ticker.SYSTEM, "lease renewal", e -> e instanceof IllegalStateException);

  private final List<Long> counted = new ArrayList<>();

  private void await(Duration wait) throws InterruptedException {
    attempts.await(wait, answer -> counted.add(answer.sentAt()));
  }

  @Test
  void anAttemptNotAnsweredInItsRoundCountsWhenAnsweredLaterBySendTime() throws Exception {
    CompletableFuture<String> first = new CompletableFuture<>();
    attempts.add(100, first);
    assertThatThrownBy(() -> await(SHORT))
        .isInstanceOf(EtcdUnavailableException.class)
        .hasMessage("etcd did not answer lease renewal within 50ms")
        .hasCauseInstanceOf(TimeoutException.class);

    CompletableFuture<String> second = new CompletableFuture<>();
    attempts.add(200, second);
    first.complete("ttl 10");
    // The round's own attempt is still open: the older answer counts at once, the wait goes on.
    assertThatThrownBy(() -> await(SHORT)).isInstanceOf(EtcdUnavailableException.class);
    assertThat(counted).containsExactly(100L);

    second.complete("ttl 10");
    await(SHORT);
    assertThat(counted).containsExactly(100L, 200L);
  }

  @Test
  void anOlderAnswerDoesNotEndTheWaitForTheRoundsOwnAttempt() throws Exception {
    CompletableFuture<String> older = new CompletableFuture<>();
    CompletableFuture<String> own = new CompletableFuture<>();
    attempts.add(100, older);
    attempts.add(200, own);
    older.complete("older");
    CompletableFuture.delayedExecutor(20, TimeUnit.MILLISECONDS).execute(() -> own.complete("own"));

    await(Duration.ofSeconds(5));

    assertThat(counted).containsExactly(100L, 200L);
  }

  @Test
  void anOlderAnswerAfterANewerOneMovesNothingBack() throws Exception {
    CompletableFuture<String> older = new CompletableFuture<>();
    CompletableFuture<String> newer = new CompletableFuture<>();
    attempts.add(100, older);
    attempts.add(200, newer);
    newer.complete("newer");
    await(SHORT);

    older.complete("older");
    attempts.add(300, new CompletableFuture<>());
    assertThatThrownBy(() -> await(SHORT)).isInstanceOf(EtcdUnavailableException.class);

    assertThat(counted).containsExactly(200L);
    assertThat(attempts.size()).isEqualTo(1); // the older one is dropped, the 300 still open
  }

  @Test
  void whenTheRoundsOwnAttemptFailedAnOlderOneStillOpenMayEndTheRound() throws Exception {
    CompletableFuture<String> older = new CompletableFuture<>();
    CompletableFuture<String> own = new CompletableFuture<>();
    attempts.add(100, older);
    attempts.add(200, own);
    own.completeExceptionally(new RuntimeException("etcdserver: no leader"));
    CompletableFuture.delayedExecutor(20, TimeUnit.MILLISECONDS)
        .execute(() -> older.complete("answered"));

    await(Duration.ofSeconds(5));

    assertThat(counted).containsExactly(100L);
  }

  @Test
  void whenEveryOpenAttemptFailedTheWaitEndsAtOnceWithTheLastError() {
    CompletableFuture<String> failed = new CompletableFuture<>();
    failed.completeExceptionally(new RuntimeException("connection refused"));
    attempts.add(100, failed);

    assertThatThrownBy(() -> await(Duration.ofSeconds(5)))
        .isInstanceOf(EtcdUnavailableException.class)
        .hasMessageContaining("lease renewal failed")
        .hasMessageContaining("connection refused");
    assertThat(counted).isEmpty();
  }

  @Test
  void aFinalFailureEndsTheWaitWhateverElseIsOpen() {
    CompletableFuture<String> gone = new CompletableFuture<>();
    gone.completeExceptionally(new IllegalStateException("requested lease not found"));
    attempts.add(100, new CompletableFuture<>());
    attempts.add(200, gone);

    assertThatThrownBy(() -> await(Duration.ofSeconds(5)))
        .isInstanceOf(EtcdUnavailableException.class)
        .hasMessageContaining("requested lease not found");
  }
}
