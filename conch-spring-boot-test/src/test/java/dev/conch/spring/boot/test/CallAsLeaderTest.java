package dev.conch.spring.boot.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.conch.Election;
import dev.conch.ElectionOptions;
import dev.conch.NotLeaderException;
import dev.conch.local.LocalOffices;
import dev.conch.spring.leaderonly.CurrentLeadership;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A job that calls {@link CurrentLeadership}, unit-tested without Spring: {@link
 * CurrentLeadership#callAsLeader} runs it as its {@code @LeaderOnly} method would run.
 */
@Timeout(60)
class CallAsLeaderTest {

  private final LocalOffices offices = new LocalOffices();

  private final Election election =
      this.offices.election(ElectionOptions.builder("invoices").candidateId("me").build());

  @AfterEach
  void close() {
    this.election.close();
  }

  @Test
  void jobRunsInTheElectionsTermAndWritesFenced() throws Exception {
    this.election.start();
    assertThat(this.election.awaitLeadership(Duration.ofSeconds(10))).isTrue();
    long token = this.election.token().orElseThrow();

    long used = CurrentLeadership.callAsLeader(this.election, InvoiceJob::send);

    assertThat(used).isEqualTo(token);
    assertThat(this.offices.value("/invoices/1")).contains("sent by " + token);
    assertThat(CurrentLeadership.find()).isEmpty();
  }

  @Test
  void aFollowerIsRefusedAndTheJobNotCalled() {
    AtomicInteger calls = new AtomicInteger();
    assertThatExceptionOfType(NotLeaderException.class)
        .isThrownBy(() -> CurrentLeadership.callAsLeader(this.election, calls::incrementAndGet))
        .withMessageContaining("invoices");
    assertThat(calls).hasValue(0);
  }

  /** What a user's {@code @LeaderOnly} method does. */
  static final class InvoiceJob {

    static long send() {
      long token = CurrentLeadership.get().token();
      CurrentLeadership.guardedPut("/invoices/1", "sent by " + token);
      return token;
    }
  }
}
