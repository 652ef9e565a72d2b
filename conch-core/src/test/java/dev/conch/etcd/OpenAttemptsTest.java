package dev.conch.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.conch.EtcdUnavailableException;
import dev.conch.Ticker;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The lease keeper's attempts stay open past their round: after an etcd raft leader change the
 * attempt that waited longest may be the first one answered (the member it reached forwards it to
 * the new leader as soon as that leader's lessor is promoted), and it counts.
 */
@Timeout(10)
class OpenAttemptsTest {

  private static final Duration SHORT = Duration.ofMillis(50);

  private final OpenAttempts<String> attempts =
      new OpenAttempts<>(Ticker.SYSTEM, "lease renewal", e -> e instanceof IllegalStateException);

  @Test
  void anAttemptNotAnsweredInItsRoundCountsWhenAnsweredLaterBySendTime() throws Exception {
    CompletableFuture<String> first = new CompletableFuture<>();
    attempts.add(100, first);
    assertThatThrownBy(() -> attempts.await(SHORT))
        .isInstanceOf(EtcdUnavailableException.class)
        .hasMessage("etcd did not answer lease renewal within 50ms")
        .hasCauseInstanceOf(TimeoutException.class);

    CompletableFuture<String> second = new CompletableFuture<>();
    attempts.add(200, second);
    first.complete("ttl 10");

    OpenAttempts.Answer<String> answer = attempts.await(SHORT);
    assertThat(answer.sentAt()).isEqualTo(100);
    assertThat(answer.value()).isEqualTo("ttl 10");
    assertThat(attempts.size()).isEqualTo(1); // the second is still open
  }

  @Test
  void ofSeveralAnsweredTheOneSentLastCountsAndOlderAnswersAfterItDoNot() throws Exception {
    CompletableFuture<String> older = new CompletableFuture<>();
    CompletableFuture<String> newer = new CompletableFuture<>();
    attempts.add(100, older);
    attempts.add(200, newer);
    newer.complete("newer");

    assertThat(attempts.await(SHORT).sentAt()).isEqualTo(200);

    older.complete("older");
    attempts.add(300, new CompletableFuture<>());
    // The late answer to an attempt sent before the one already counted moves nothing back.
    assertThatThrownBy(() -> attempts.await(SHORT)).isInstanceOf(EtcdUnavailableException.class);
  }

  @Test
  void aFailedAttemptIsDroppedWhileAnotherMayStillBeAnswered() throws Exception {
    CompletableFuture<String> failed = new CompletableFuture<>();
    CompletableFuture<String> open = new CompletableFuture<>();
    attempts.add(100, failed);
    attempts.add(200, open);
    failed.completeExceptionally(new RuntimeException("etcdserver: no leader"));
    CompletableFuture.delayedExecutor(20, java.util.concurrent.TimeUnit.MILLISECONDS)
        .execute(() -> open.complete("answered"));

    assertThat(attempts.await(Duration.ofSeconds(5)).value()).isEqualTo("answered");
  }

  @Test
  void whenEveryOpenAttemptFailedTheWaitEndsAtOnceWithTheLastError() {
    CompletableFuture<String> failed = new CompletableFuture<>();
    failed.completeExceptionally(new RuntimeException("connection refused"));
    attempts.add(100, failed);

    assertThatThrownBy(() -> attempts.await(Duration.ofSeconds(5)))
        .isInstanceOf(EtcdUnavailableException.class)
        .hasMessageContaining("lease renewal failed")
        .hasMessageContaining("connection refused");
  }

  @Test
  void aFinalFailureEndsTheWaitWhateverElseIsOpen() {
    CompletableFuture<String> gone = new CompletableFuture<>();
    gone.completeExceptionally(new IllegalStateException("requested lease not found"));
    attempts.add(100, new CompletableFuture<>());
    attempts.add(200, gone);

    assertThatThrownBy(() -> attempts.await(Duration.ofSeconds(5)))
        .isInstanceOf(EtcdUnavailableException.class)
        .hasMessageContaining("requested lease not found");
  }
}
