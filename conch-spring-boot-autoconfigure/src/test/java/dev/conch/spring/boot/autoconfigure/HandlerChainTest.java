package dev.conch.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.conch.Holder;
import dev.conch.Leadership;
import dev.conch.LeadershipHandler;
import dev.conch.LossReason;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The chain of the runner's office keeps the core's contract for each handler: {@code lost} once
 * for each {@code acquired} it got, in reverse, also when a later handler failed; the core calls
 * the chain's {@code lost} once after a failed {@code acquired} too.
 */
@Timeout(10)
class HandlerChainTest {

  private final List<String> calls = new CopyOnWriteArrayList<>();

  private final Leadership term =
      new Leadership("batch", 7, 1, Holder.of("batch", "host", 1, Instant.EPOCH, "a").at(7, 1));

  @Test
  void failedAcquireIsUndoneOnceByTheCoresLostCallAndLaterHandlersAreNotTouched() {
    HandlerChain chain =
        chain(handler("one", false), handler("two", true), handler("three", false));

    assertThatIllegalStateException().isThrownBy(() -> chain.acquired(this.term));
    // The core calls lost once for the acquired call that failed.
    chain.lost(this.term, LossReason.ACQUIRE_FAILED);

    assertThat(this.calls)
        .containsExactly(
            "acquired one", "acquired two", "lost two ACQUIRE_FAILED", "lost one ACQUIRE_FAILED");
  }

  @Test
  void eachTermIsUndoneOnceInReverseOrder() throws Exception {
    HandlerChain chain = chain(handler("one", false), handler("two", false));

    chain.acquired(this.term);
    chain.lost(this.term, LossReason.RESIGNED);
    chain.lost(this.term, LossReason.RESIGNED);
    chain.acquired(this.term);
    chain.lost(this.term, LossReason.KEY_DELETED);

    assertThat(this.calls)
        .containsExactly(
            "acquired one",
            "acquired two",
            "lost two RESIGNED",
            "lost one RESIGNED",
            "acquired one",
            "acquired two",
            "lost two KEY_DELETED",
            "lost one KEY_DELETED");
  }

  @Test
  void lostWithoutAnAcquireCallsNothing() {
    HandlerChain chain = chain(handler("one", false));

    chain.lost(this.term, LossReason.CLOSED);

    assertThat(this.calls).isEmpty();
  }

  private static HandlerChain chain(LeadershipHandler... handlers) {
    HandlerChain chain = new HandlerChain();
    for (LeadershipHandler handler : handlers) {
      chain.add(handler);
    }
    return chain;
  }

  private LeadershipHandler handler(String name, boolean failing) {
    return new LeadershipHandler() {
      @Override
      public void acquired(Leadership leadership) {
        HandlerChainTest.this.calls.add("acquired " + name);
        if (failing) {
          throw new IllegalStateException(name + " refuses");
        }
      }

      @Override
      public void lost(Leadership leadership, LossReason reason) {
        HandlerChainTest.this.calls.add("lost " + name + " " + reason);
      }
    };
  }
}
