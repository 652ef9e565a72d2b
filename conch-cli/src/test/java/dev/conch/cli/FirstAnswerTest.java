package dev.conch.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.conch.EtcdUnavailableException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The first request: asked again while etcd may be starting, never past the bound. */
@Timeout(30)
class FirstAnswerTest {

  private static final Duration BOUND = Duration.ofSeconds(3);

  @Test
  void aRefusedConnectionIsAskedAgainUntilEtcdAnswers() throws InterruptedException {
    AtomicInteger attempts = new AtomicInteger();

    String answer =
        FirstAnswer.within(
            BOUND,
            "reading",
            timeout -> {
              if (attempts.incrementAndGet() < 3) {
                throw new ConnectException("Connection refused");
              }
              return "answer";
            });

    assertThat(answer).isEqualTo("answer");
    assertThat(attempts).hasValue(3);
  }

  @Test
  void aTlsMistakeIsReportedAtTheFirstAttempt() {
    AtomicInteger attempts = new AtomicInteger();

    assertThatThrownBy(
            () ->
                FirstAnswer.within(
                    BOUND,
                    "reading the leader of office 'x'",
                    timeout -> {
                      attempts.incrementAndGet();
                      throw new SSLHandshakeException("Received fatal alert: bad_certificate");
                    }))
        .isInstanceOf(EtcdUnavailableException.class)
        .hasMessageStartingWith("reading the leader of office 'x' failed: TLS handshake failed");
    assertThat(attempts).hasValue(1);
  }

  @Test
  void anOutageIsReportedAfterTheBoundWithTheLastCause() {
    long start = System.nanoTime();

    assertThatThrownBy(
            () ->
                FirstAnswer.within(
                    Duration.ofMillis(500),
                    "reading",
                    timeout -> {
                      throw new ConnectException("Connection refused");
                    }))
        .isInstanceOf(EtcdUnavailableException.class)
        .hasMessage("reading failed: connection refused");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
  }

  @Test
  void eachAttemptGetsWhatIsLeftOfTheBoundAndASilentEtcdIsNamedAsSuch() {
    assertThatThrownBy(
            () ->
                FirstAnswer.within(
                    Duration.ofMillis(300),
                    "reading",
                    timeout -> {
                      assertThat(timeout).isLessThanOrEqualTo(Duration.ofMillis(300));
                      Thread.sleep(timeout.toMillis());
                      throw new SocketTimeoutException("Read timed out");
                    }))
        .isInstanceOf(EtcdUnavailableException.class)
        .hasMessage("etcd did not answer reading within 300ms");
  }
}
